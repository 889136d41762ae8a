#!/usr/bin/env bash
# bench_live.sh: how soon each GC shows while its program still runs.
#
#   Records real programs with memcity record and follows each trace as it is written, as the
#   explorer window (and memcity record --live) does, with bench_live: for every GC, the time from
#   the JVM's end of it to its record, and to its column of the streamed series (what the window
#   draws), published. Three runs each, their figures printed:
#     - the demo shop (assets/demo/ShopServer.java on H2, 2,500 requests): a young GC every MiB,
#       a reference snapshot every 4th GC (as scripts/record-demo records it);
#     - the same with a snapshot after every GC (the recorder's default);
#     - H2 inserting and querying 10,000 rows with a young GC every 4 MiB.
#   Target: a GC on screen within 1.5 s of its end.
#
# usage: bench/bench_live.sh [BUILD_DIR]    (default: build; about 2 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[[ -x $build/memcity && -x $build/bench/bench_live ]] || { echo "build memcity and its benchmarks first" >&2; exit 1; }
h2=/usr/share/java/h2.jar
[[ -f $h2 ]] || { echo "libh2-java is not installed (scripts/setup installs it)" >&2; exit 1; }
jdk=/usr/lib/jvm/java-17-openjdk-amd64
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$jdk/bin/javac" -d "$work" assets/demo/ShopServer.java tests/recorder/java/H2Workload.java tests/recorder/java/Zoo.java

# One recording followed: bench_live's line, after the recorder's own.
follow() {
    local name=$1; shift
    local trace="$work/run.mct"  # (no comma: the agent's options are comma-separated)
    rm -f "$trace"
    "$build/memcity" record -o "$trace" "$@" >/dev/null 2>&1 &
    local recorder=$!
    local line
    line=$("$build/bench/bench_live" "$trace")
    wait "$recorder" || true
    printf '%-44s %s\n' "$name" "$line"
}

echo "== from a GC's end to the window (2 cores; $("$jdk/bin/java" -version 2>&1 | head -1))"
for run in 1 2 3; do
    follow "demo shop, refs 4 (run $run)" --depth 8 --refs 4 --gc-every 1m -- \
        "$jdk/bin/java" -Xms32m -Xmx64m -cp "$work:$h2" ShopServer 2500
done
for run in 1 2 3; do
    follow "demo shop, refs 1 (run $run)" --depth 8 --refs 1 --gc-every 1m -- \
        "$jdk/bin/java" -Xms32m -Xmx64m -cp "$work:$h2" ShopServer 2500
done
for run in 1 2 3; do
    follow "H2 10k rows, refs 4 (run $run)" --depth 8 --refs 4 --gc-every 4m -- \
        "$jdk/bin/java" -cp "$work:$h2" H2Workload 10000
done
echo "target: a GC on screen within 1.5 s of its end"
