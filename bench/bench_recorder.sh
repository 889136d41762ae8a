#!/usr/bin/env bash
# bench_recorder.sh: what recording costs on real programs.
#
#   For javac compiling 10 JDK sources and the H2 database (10,000 rows through JDBC), every
#   figure the median of 3 runs: wall time plain; recorded at depth 8 with a snapshot after every
#   GC and at depth 4 without snapshots, as memcity records by default (sites read from the JVM's
#   frames, deaths told by weak references) and with each mechanism replaced by the JVMTI call it
#   replaces (sites=jvmti: GetStackTrace per allocation; deaths=tags: a tag per object and
#   ObjectFree), both replaced being the agent as it was before them. For each: the ratio
#   recorded/plain, the agent's start-up (its walk of the heap that was there) and exit (the last
#   GC, its count, the trace's close), allocations per second and trace bytes per allocation. All
#   runs use the same JVM flags (-XX:+UseSerialGC -XX:-DoEscapeAnalysis), as memcity record does.
#
#   Then the floor: the same program under bench/jvmti_floor_agent, which records nothing but makes
#   the JVMTI calls a per-allocation recorder makes (every allocation reported; each object tagged
#   so its death is reported, or given a weak reference read at each GC's end; a GetTag on its
#   class; an N-frame GetStackTrace or AsyncGetCallTrace), each alone, to show how much of the
#   slowdown is HotSpot's and how much memcity's agent adds.
#
# usage: bench/bench_recorder.sh [BUILD_DIR]    (default: build; about 12 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
memcity="$build/memcity"
agent=$(realpath "$build/libmemcity_agent.so" 2>/dev/null || true)
floor=$(realpath "$build/bench/libjvmti_floor_agent.so" 2>/dev/null || true)
[[ -x $memcity && -f $agent && -f $floor ]] ||
    { echo "build memcity, its agent and the benchmarks first (scripts/build)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source bench/programs.sh  # javac_cmd, h2_cmd

seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
flags=(-XX:+UseSerialGC -XX:-DoEscapeAnalysis)

# Runs a command three times (after clearing javac's output), prints the median wall time.
timed3() {
    local a b c
    a=$(rm -rf "$work/out"; mkdir -p "$work/out"; seconds "$@")
    b=$(rm -rf "$work/out"; mkdir -p "$work/out"; seconds "$@")
    c=$(rm -rf "$work/out"; mkdir -p "$work/out"; seconds "$@")
    median3 "$a" "$b" "$c"
}

bench() {
    local name=$1; shift
    local cmd=("$@")
    local plain_cmd=("${cmd[0]}" "${flags[@]}" "${cmd[@]:1}")
    rm -rf "$work/out"; mkdir -p "$work/out"
    seconds "${plain_cmd[@]}" >/dev/null  # warm the page cache and the JDK's CDS
    local plain; plain=$(timed3 "${plain_cmd[@]}")
    printf '%-6s plain                                          %6.2f s\n' "$name" "$plain"
    # memcity as it records by default (sites from the JVM's frames, deaths by weak reference),
    # then each mechanism replaced by the JVMTI call it replaces, then both (the agent before).
    for config in "8 1 sites=walk,deaths=weak" "8 1 sites=jvmti,deaths=tags" \
                  "4 off sites=walk,deaths=weak" "4 off sites=jvmti,deaths=weak" "4 off sites=walk,deaths=tags" \
                  "4 off sites=jvmti,deaths=tags"; do
        set -- $config
        local trace="$work/$name.mct" log="$work/$name.log"
        # The agent straight on the java command line, as memcity record puts it, so that the time
        # is the program's alone (memcity record then reads the whole trace back for its summary).
        local agent_cmd=("${cmd[0]}" "-agentpath:$agent=file=$trace,depth=$1,refs=$2,$3" "${flags[@]}" "${cmd[@]:1}")
        local t; t=$(timed3 sh -c '"$@" 2>"'"$log"'"' sh "${agent_cmd[@]}")
        local objects bytes startup exit_s
        objects=$("$memcity" info "$trace" --json | sed -n 's/^  "objects_allocated": \([0-9]*\),/\1/p')
        bytes=$(stat -c %s "$trace")
        startup=$(sed -n 's/.*start-up \([0-9.]*\) s, exit \([0-9.]*\) s.*/\1/p' "$log")
        exit_s=$(sed -n 's/.*start-up \([0-9.]*\) s, exit \([0-9.]*\) s.*/\2/p' "$log")
        printf '%-6s depth %s, refs %-3s %-26s %6.2f s  %5.1fx  (start-up %.2f s, exit %.2f s)  %5.2f M allocations/s  %5.1f B/allocation\n' \
            "$name" "$1" "$2" "$3" "$t" "$(echo "$t / $plain" | bc -l)" "${startup:-0}" "${exit_s:-0}" \
            "$(echo "$objects / $t / 1000000" | bc -l)" "$(echo "$bytes / $objects" | bc -l)"
    done
    for opts in events events,tag events,weak events,classtag events,tag,stack=4 events,tag,stack=8 \
                events,asgct=8; do
        local t; t=$(timed3 "${cmd[0]}" "-agentpath:$floor=$opts" "${flags[@]}" "${cmd[@]:1}")
        printf '%-6s JVMTI floor: %-33s %6.2f s  %5.1fx\n' "$name" "$opts" "$t" "$(echo "$t / $plain" | bc -l)"
    done
}

echo "== recording cost ($(nproc) cores; JDK: $jdk)"
bench javac "${javac_cmd[@]}"
bench h2 "${h2_cmd[@]}"
echo "targets: javac <= 4x at depth 8 with a snapshot after every GC, <= 2.5x at depth 4 without; h2 <= 6x and <= 4x; <= 12 trace bytes per allocation"
