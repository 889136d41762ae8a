#!/usr/bin/env bash
# bench_explorer.sh: how responsive the explorer window is, on lavapipe under Xvfb (1600x900).
#
#   1. A big heap being loaded: the big-heap workload at --scale S (S = 95 writes about 1.2 GB)
#      opened by type,site,thread. While the history is rebuilt in the background the window
#      keeps drawing frames (as when a user moves the mouse). Printed: when the first GC was
#      rebuilt and when it was on the screen, and the frame times while loading (median, 95%,
#      longest: a stall shows as a frame far longer than the others).
#   2. A city of about 15k buildings (big-heap scale 40 by type,site,thread,length, pruning off:
#      every group a building): input to picture for scrubbing to another GC, a tweened time
#      between two GCs, steps, keys, camera moves, a click that picks a building, a hover, from
#      the frame that takes the input until the GPU finished drawing it.
#
# usage: bench/bench_explorer.sh [BUILD_DIR] [SCALE]   (default: build 95; the traces are kept in
#        /tmp/memcity-bench and written once, a few minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scale=${2:-95}
memcity="$build/memcity"
[[ -x $memcity ]] || { echo "build memcity first (scripts/build)" >&2; exit 1; }
command -v xvfb-run >/dev/null || { echo "xvfb-run is needed (scripts/setup installs it)" >&2; exit 1; }

dir=/tmp/memcity-bench
mkdir -p "$dir"
ensure() {  # SCALE: the big-heap trace at that scale, written once
    local t=$dir/big-heap-$1.mct
    if [[ ! -f $t ]]; then
        echo "writing $t ..." >&2
        "$memcity" synth big-heap --scale "$1" -o "$t.tmp" >/dev/null
        mv "$t.tmp" "$t"
    fi
    echo "$t"
}

script=$(mktemp)
trap 'rm -f "$script"' EXIT
run() {  # TRACE CHAIN: the script in a 1600x900 window
    xvfb-run -a -s "-screen 0 1600x1000x24" "$memcity" "$1" --classify "$2" --size 1600x900 --script "$script" |
        grep -E "^(city|timing):"
}

trace=$(ensure "$scale")
echo "== 1. loading $trace ($(du -h "$trace" | cut -f1)) by type,site,thread"
printf 'wait\nprint timing\n' >"$script"
run "$trace" type,site,thread

city=$(ensure 40)
echo "== 2. input to picture in the city of $city by type,site,thread,length(buckets=1), pruning off"
printf '%s\n' "prune off" "print state" "gc 100" "gc 150" "time 120.5" "next" "prev" "key right" "key left" \
    "camera street" "camera overview" "camera orbit 0.3 0.1" "click view" "hover 400 300" "print timing" >"$script"
run "$city" "type,site,thread,length(buckets=1)" | grep -E "^city|input to picture"
