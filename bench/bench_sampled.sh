#!/usr/bin/env bash
# bench_sampled.sh: what a sampled recording costs a program, against the same program plain.
#
#   Three programs, each run PAIRS times plain and sampled, alternately (plain, sampled, plain,
#   ...), with the same JVM flags: the JVM's own defaults (G1, escape analysis on: production),
#   the agent on the java command line as `memcity record --sampled` puts it:
#     javac  compiling ten JDK sources (5.5 M allocations);
#     h2     the H2 database, 10,000 rows through JDBC;
#     loop   bench/java/RequestLoop, a busy service's allocation-bound request loop over a cache
#            of 100,000 entries, 40 M requests (about 15 allocations each), with a fixed 2 GiB
#            heap touched up front (-Xms2g -Xmx2g -XX:+AlwaysPreTouch), as a service runs.
#   For each: the medians of the wall times and the median of the pairs' ratios (the machine's
#   noise moves both runs of a pair alike), samples per second, the census's share of the run,
#   and the trace's size per minute.
#
#   Then the exact recorder on the same request loop, 5 s of requests each, the requests served
#   against the plain run's (-XX:+UseSerialGC -XX:-DoEscapeAnalysis, as exact recording runs),
#   and against bench/jvmti_floor_agent (every allocation reported; and a weak reference each).
#
# usage: bench/bench_sampled.sh [BUILD_DIR] [PAIRS]   (default: build, 5; about 15 minutes)
#        INTERVAL=256k bench/bench_sampled.sh ...      (another sampling interval than the default)
#        ONLY=loop bench/bench_sampled.sh ...          (one program; EXACT=0 skips the exact part)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
pairs=${2:-5}
memcity="$build/memcity"
agent=$(realpath "$build/libmemcity_agent.so" 2>/dev/null || true)
floor=$(realpath "$build/bench/libjvmti_floor_agent.so" 2>/dev/null || true)
[[ -x $memcity && -f $agent && -f $floor ]] ||
    { echo "build memcity, its agent and the benchmarks first (scripts/build)" >&2; exit 1; }
interval=${INTERVAL:-512k}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source bench/programs.sh  # javac_cmd, h2_cmd, loop_cmd, service_flags

seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# A number from memcity info --json: the first "KEY": VALUE.
infoValue() { "$memcity" info "$1" --json | sed -n "s/^ *\"$2\": \\([0-9.e+-]*\\),*$/\\1/p" | head -1; }

# sampled NAME COMMAND...: PAIRS alternated pairs, plain then sampled.
sampled() {
    local name=$1; shift
    local cmd=("$@") trace="$work/$name.mct"
    local agent_cmd=("${cmd[0]}" "-agentpath:$agent=file=$trace,interval=$interval,quiet" "${cmd[@]:1}")
    rm -rf "$work/out"; mkdir -p "$work/out"
    seconds "${cmd[@]}" >/dev/null  # warm the page cache and the JDK's CDS
    local plain=() rec=() ratios=()
    for ((i = 0; i < pairs; i++)); do
        rm -rf "$work/out"; mkdir -p "$work/out"
        local p; p=$(seconds "${cmd[@]}")
        rm -rf "$work/out" "$trace"; mkdir -p "$work/out"
        local s; s=$(seconds "${agent_cmd[@]}")
        plain+=("$p") rec+=("$s") ratios+=("$(echo "$s / $p" | bc -l)")
    done
    local mp ms mr samples census duration bytes
    mp=$(median "${plain[@]}") ms=$(median "${rec[@]}") mr=$(median "${ratios[@]}")
    samples=$(infoValue "$trace" samples)
    census=$(infoValue "$trace" census_ns)
    duration=$(infoValue "$trace" duration_ns)
    bytes=$(stat -c %s "$trace")
    printf '%-6s plain %6.2f s, sampled %6.2f s: %.3fx (median of %d pair ratios %.3fx; pairs %s)\n' "$name" "$mp" \
        "$ms" "$(echo "$ms / $mp" | bc -l)" "$pairs" "$mr" "$(printf '%.2f ' "${ratios[@]}")"
    printf '       %s samples (%.0f/s), census %.2f%% of the run, trace %s (%.2f MiB per minute)\n' "$samples" \
        "$(echo "$samples / $ms" | bc -l)" "$(echo "100 * ${census:-0} / ${duration:-1}" | bc -l)" \
        "$(numfmt --to=iec "$bytes")" "$(echo "$bytes / 1048576 / ($ms / 60)" | bc -l)"
}

echo "== sampled recording, interval $interval ($(nproc) cores; JDK: $jdk; $pairs alternated pairs each)"
[[ ${ONLY:-} == "" || ${ONLY:-} == javac ]] && sampled javac "${javac_cmd[@]}"
[[ ${ONLY:-} == "" || ${ONLY:-} == h2 ]] && sampled h2 "${h2_cmd[@]}"
[[ ${ONLY:-} == "" || ${ONLY:-} == loop ]] && sampled loop "${loop_cmd[@]}"
echo "target: <= 1.05x on all three; <= 10 MiB of trace per minute of the request loop"

[[ ${EXACT:-1} == 0 ]] && exit 0
# requests COMMAND...: the requests a 5 s run served (median of 3).
requests() {
    local r=()
    for ((i = 0; i < 3; i++)); do
        r+=("$("$@" 2>/dev/null | sed -n 's/^requests \([0-9]*\) in .*/\1/p')")
    done
    median "${r[@]}"
}
exact=(-XX:+UseSerialGC -XX:-DoEscapeAnalysis "${service_flags[@]}")
loop5=(-cp "$work/classes" RequestLoop 5)
echo "== the request loop exact, 5 s of requests (median of 3), $(printf '%s ' "${exact[@]}")"
base=$(requests "$jdk/bin/java" "${exact[@]}" "${loop5[@]}")
printf '%-52s %12s requests\n' "plain" "$base"
for config in "depth=4,refs=off" "depth=8,refs=1"; do
    n=$(requests "$jdk/bin/java" "-agentpath:$agent=file=$work/exact.mct,$config,quiet" "${exact[@]}" "${loop5[@]}")
    printf '%-52s %12s requests  %6.1fx\n' "memcity exact, $config" "$n" "$(echo "$base / $n" | bc -l)"
done
for opts in events events,weak; do
    n=$(requests "$jdk/bin/java" "-agentpath:$floor=$opts" "${exact[@]}" "${loop5[@]}")
    printf '%-52s %12s requests  %6.1fx\n' "JVMTI floor: $opts" "$n" "$(echo "$base / $n" | bc -l)"
done
