#!/usr/bin/env bash
# bench_heapmap.sh: what the heap's layout costs (docs/heapmap.md).
#
#  1. Recording: the bundled demo program (a web shop on H2, 2,500 requests, Serial, a reference
#     snapshot every 4th GC) recorded three times: the agent's time reading the objects'
#     addresses at the snapshot GCs (its META "addresses") and the ADDRS chunks' share of the
#     trace.
#  2. Reading: synth growing-map --scale 20 (523 GCs, each with a snapshot, every 4th with the
#     addresses of its objects; 1.3 M live objects at the end): `memcity gcs` (the whole history, which only
#     indexes the ADDRS chunks), `memcity spaces --gc LAST` (the heap at the last GC, its
#     addresses and its map: time and peak memory), and the heap map picture of the last GC,
#     with --stream dying (one more GC replayed, the history graph's deaths too) and with --stream
#     selected (the history graph classifies every GC with addresses). Three runs each, the median.
#  3. The window (under Xvfb): the same trace opened, the cursor at its last GC, then `view heapmap`
#     (the heap rebuilt, its addresses read and sorted, the map built), the dying stream (the heap
#     kept, the next GC replayed) and the map of GC LAST - 2 (another heap, with dying): the
#     time each map took in the background (`print timing`), medians of three runs.
#
# usage: bench/bench_heapmap.sh [BUILD_DIR]    (default: build; about 4 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[[ -x $build/memcity && -f $build/libmemcity_agent.so ]] || { echo "build memcity first (scripts/build)" >&2; exit 1; }
dir=/tmp/memcity-bench
mkdir -p "$dir"
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }

# ADDRS bytes (stored, headers included) of a trace, and its size.
addrs_bytes() {
    python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, addrs = 32, 0
while off + 24 <= len(d):
    sync, kind, flags, stored = struct.unpack_from('<IHHI', d, off)
    if sync != 0x314b434d: break
    if kind == 7: addrs += 24 + stored
    off += 24 + stored
print(addrs, len(d))
PY
}

echo "== recording the demo (3 runs)"
classes=$(mktemp -d)
trap 'rm -rf "$classes"' EXIT
javac -d "$classes" assets/demo/ShopServer.java
reads=() shares=()
for i in 1 2 3; do
    "$build/memcity" record -o "$dir/demo-layout.mct" --depth 8 --refs 4 --gc-every 1m -- \
        java -Xms32m -Xmx64m -cp "$classes:/usr/share/java/h2.jar" ShopServer 2500 >/dev/null 2>&1
    meta=$("$build/memcity" info "$dir/demo-layout.mct" --json 2>/dev/null | grep '"addresses"' || true)
    ms=$(echo "$meta" | sed -n 's/.*read in \([0-9.]*\) ms.*/\1/p')
    read -r a total < <(addrs_bytes "$dir/demo-layout.mct")
    reads+=("$ms")
    shares+=("$(awk -v a="$a" -v t="$total" 'BEGIN { printf "%.1f", 100 * a / t }')")
    echo "  run $i: $meta; ADDRS $a of $total bytes"
done
echo "demo: addresses read in $(median "${reads[@]}") ms (median), ADDRS $(median "${shares[@]}")% of the trace"

trace=$dir/growing-map-20.mct
if [[ ! -f $trace ]] || ! "$build/memcity" info "$trace" | grep -q "addrs"; then
    echo "writing $trace ..." >&2
    "$build/memcity" synth growing-map --scale 20 -o "$trace.tmp" >/dev/null
    mv "$trace.tmp" "$trace"
fi
read -r a total < <(addrs_bytes "$trace")
last=$(("$("$build/memcity" gcs "$trace" 2>/dev/null | tail -1 | awk '{print $1}')"))
echo "== $trace: $total bytes, ADDRS $a ($(awk -v a="$a" -v t="$total" 'BEGIN { printf "%.1f", 100 * a / t }')%), last GC $last"
run() {  # NAME COMMAND...: three runs, the median time and peak memory
    local name=$1; shift
    local times=() mems=() out
    for i in 1 2 3; do
        /usr/bin/time -f "%e %M" -o "$dir/time" "$@" >/dev/null 2>&1
        out=$(tail -1 "$dir/time")
        times+=("${out% *}") mems+=("${out#* }")
    done
    printf '%-34s %6s s  peak %5d MiB\n' "$name" "$(median "${times[@]}")" $(($(median "${mems[@]}") / 1024))
}
run "gcs (the whole history)" "$build/memcity" gcs "$trace"
run "spaces --gc $last (heap + addresses)" "$build/memcity" spaces "$trace" --gc "$last"
run "render heapmap --gc $last" "$build/memcity" render "$trace" --view heapmap --gc "$last" -o "$dir/heapmap.png"
run "render heapmap --stream dying" "$build/memcity" render "$trace" --view heapmap --stream dying --gc $((last - 1)) -o "$dir/heapmap-dying.png"
run "render heapmap --stream selected" "$build/memcity" render "$trace" --view heapmap --stream selected --classify type \
    --select com.dynatrace.easytravel.jpa.business.Location --gc "$last" -o "$dir/heapmap-selected.png"

echo "== the window: $trace at GC $last"
script=$dir/heapmap.script
printf 'wait\ngc %s\nwait\nview heapmap\nwait\nprint timing\nheapmap stream dying\nwait\nprint timing\ngc %s\nwait\nprint timing\n' \
    "$last" $((last - 2)) >"$script"
first=() dying=() before=()
for i in 1 2 3; do
    out=$(xvfb-run -a -s "-screen 0 1600x1000x24" "$build/memcity" "$trace" --size 1400x860 --settings - \
        --script "$script" 2>/dev/null | grep '^timing: heap map')
    mapfile -t lines <<<"$out"
    ms() { sed -n 's/.*built in \([0-9.]*\) ms.*/\1/p' <<<"$1"; }
    first+=("$(ms "${lines[0]}")") dying+=("$(ms "${lines[1]}")") before+=("$(ms "${lines[2]}")")
    echo "  run $i: ${lines[0]#timing: }; dying: ${lines[1]#timing: heap map }; GC LAST - 2: ${lines[2]#timing: heap map }"
done
echo "window: the map of GC $last $(median "${first[@]}") ms after 'view heapmap' (heap rebuilt); with dying $(median "${dying[@]}") ms; GC $((last - 2)) $(median "${before[@]}") ms (medians)"
