#!/usr/bin/env bash
# bench_sampled_snapshot.sh: what a reference snapshot asked of a sampled recording costs, on a
# large heap.
#
#   bench/java/BigHeap holds SIZE MiB of live objects of everyday kinds (a HashMap of records,
#   lists of boxed numbers, arrays) under the JVM's own collector (G1). memcity attaches to it
#   sampled, then asks for a snapshot RUNS times with 'memcity snapshot PID --now' (a forced full
#   GC, the walk of every object and reference, the listing of what no reported root reaches, and
#   the census after it), and detaches. Printed: the heap the snapshots made whole (objects,
#   bytes: the JVM's, to the census), the median wall time of 'snapshot --now', the walks' mean
#   time from the trace (the agent's own clock), per million objects and per GiB, and against
#   the forced full GC's own pause (median): what the program stands still for, against what a
#   full GC of that heap costs it anyway.
#
# usage: bench/bench_sampled_snapshot.sh [BUILD_DIR] [SIZE_MIB] [RUNS]
#        (default: build, 1024, 3; about 3 minutes; Temurin 25, or the JDK in $JDK)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
size=${2:-1024}
runs=${3:-3}
memcity="$build/memcity"
[[ -x $memcity && -f $build/libmemcity_agent.so ]] ||
    { echo "build memcity and its agent first (scripts/build)" >&2; exit 1; }
java_home=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
[[ -x $java_home/bin/java ]] || java_home=/usr/lib/jvm/java-17-openjdk-amd64

work=$(mktemp -d)
pid=
cleanup() {
    [[ -n $pid ]] && kill "$pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

"$java_home/bin/javac" -d "$work/classes" bench/java/BigHeap.java
mkfifo "$work/stdin"
"$java_home/bin/java" -Xmx$((size * 4))m -cp "$work/classes" BigHeap "$size" <"$work/stdin" >"$work/big.out" &
pid=$!
exec 3>"$work/stdin"
for _ in $(seq 1 600); do grep -q READY "$work/big.out" 2>/dev/null && break; sleep 1; done
grep -q READY "$work/big.out" || { echo "BigHeap did not start" >&2; exit 1; }
echo "BigHeap $size MiB on $("$java_home/bin/java" -version 2>&1 | head -1) (pid $pid)"

trace=$work/big.mct
"$memcity" attach "$pid" --sampled -o "$trace" >"$work/attach.out" 2>"$work/attach.err" &
attach=$!
for _ in $(seq 1 300); do grep -q "recording process" "$work/attach.err" 2>/dev/null && break; sleep 0.2; done
grep -q "recording process" "$work/attach.err" || { cat "$work/attach.err" >&2; exit 1; }

walls=()
for ((i = 0; i < runs; i++)); do
    t0=$(date +%s.%N)
    "$memcity" snapshot "$pid" --now
    t1=$(date +%s.%N)
    walls+=("$(echo "$t1 - $t0" | bc -l)")
done
"$memcity" detach "$pid" >/dev/null
wait "$attach"
echo go >&3
exec 3>&-
wait "$pid" || true
pid=

# The snapshots' GCs: their pauses and the heap made whole (reachable + unreached).
read -r objects bytes pause <<<"$("$memcity" gcs "$trace" --json | python3 -c '
import json, statistics, sys
gcs = [g for g in json.load(sys.stdin)["gcs"] if g["snapshot"]]
objects = statistics.median(g["reachable_objects"] + g["unreached_objects"] for g in gcs)
bytes_ = statistics.median(g["reachable_bytes"] + g["unreached_bytes"] for g in gcs)
pause = statistics.median(g["pause_ns"] for g in gcs) / 1e6
print(int(objects), int(bytes_), pause)')"
line=$("$memcity" info "$trace" | sed -n 's/^ *snapshots.taken = //p')
taken=$(echo "$line" | awk '{print $1}')
walk_ms=$(echo "$line" | sed -n 's/.* taken in \([0-9.]*\) ms.*/\1/p')
mean_walk=$(echo "$walk_ms / $taken" | bc -l)
wall=$(median "${walls[@]}")
echo "snapshots: $line"
printf 'heap made whole: %d objects, %.1f MiB\n' "$objects" "$(echo "$bytes / 1048576" | bc -l)"
printf "'memcity snapshot --now': %.2f s (median of %d; the forced GC, the walk, the census)\n" "$wall" "$runs"
printf 'the walk: %.0f ms each (mean), %.0f ms per million objects, %.0f ms per GiB\n' "$mean_walk" \
    "$(echo "$mean_walk * 1000000 / $objects" | bc -l)" "$(echo "$mean_walk * 1073741824 / $bytes" | bc -l)"
printf 'the forced full GC: %.0f ms (median); walk / full GC: %.1fx\n' "$pause" "$(echo "$mean_walk / $pause" | bc -l)"
