#!/usr/bin/env bash
# bench_snapshots.sh: opening a trace with a reference snapshot after every GC (the recorder's
# default). Issue targets: `memcity gcs` on synth growing-map --scale 20 (523 GCs, all with
# snapshots, 1.3 M live objects at the end) <= 3 s; the window fully loaded <= 6 s.
#
#   Three runs each, then the median: `memcity gcs` (the history with every snapshot's reachable
#   counts) and the window under Xvfb from start to the whole series loaded (a script that waits
#   for it and quits). The trace is written once into /tmp/memcity-bench (about 45 s).
#
# usage: bench/bench_snapshots.sh [BUILD_DIR]    (default: build; about 2 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[[ -x $build/memcity ]] || { echo "build memcity first (scripts/build)" >&2; exit 1; }
dir=/tmp/memcity-bench
mkdir -p "$dir"
trace=$dir/growing-map-20.mct
if [[ ! -f $trace ]] || ! "$build/memcity" info "$trace" | grep -q "snapshots = from roots"; then
    echo "writing $trace ..." >&2
    "$build/memcity" synth growing-map --scale 20 -o "$trace.tmp" >/dev/null
    mv "$trace.tmp" "$trace"
fi
script=$(mktemp)
trap 'rm -f "$script"' EXIT
printf 'wait\nquit\n' >"$script"

median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
run() {  # NAME TARGET COMMAND...
    local name=$1 target=$2; shift 2
    local times=()
    for _ in 1 2 3; do
        local start end
        start=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        end=$(date +%s.%N)
        times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }')")
    done
    printf '%-34s %6.2f s  (runs %s; target <= %s s)\n' "$name" "$(median "${times[@]}")" \
        "$(printf '%.2f ' "${times[@]}")" "$target"
}

echo "== $(basename "$trace"): $("$build/memcity" info "$trace" | grep '^GCs' | sed 's/  */ /g') ($(nproc) cores)"
run "memcity gcs" 3 "$build/memcity" gcs "$trace"
if command -v xvfb-run >/dev/null; then
    run "window, whole series loaded" 6 xvfb-run -a "$build/memcity" "$trace" --size 1280x800 --script "$script"
else
    echo "window: xvfb-run is not installed (scripts/setup installs it)"
fi
