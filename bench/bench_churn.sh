#!/usr/bin/env bash
# bench_churn.sh: churn by cause over a big window (issue target: a 50 M-event window classified
# in <= 5 s).
#
#   Synthesizes the churn scenario at scale 40 (49.4 M events: 24.7 M objects born and dead,
#   1,984 GCs) and runs `memcity churn` over the whole run, three times each by type and by
#   type,site(callers=1): wall time (opening the trace included) and peak memory, then the median.
#
# usage: bench/bench_churn.sh [BUILD_DIR]    (default: build; about a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[[ -x $build/memcity ]] || { echo "build memcity first" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trace=$work/churn40.mct
"$build/memcity" synth churn --scale 40 -o "$trace" >/dev/null
events=$("$build/memcity" info "$trace" | awk '/^events/ {sub(":", "", $2); print $2}')
last=$(( $("$build/memcity" gcs "$trace" --json | grep -o '"index":' | wc -l) - 1 ))
echo "== memcity churn over GCs 0..$last of the churn scenario at scale 40 ($events events; $(nproc) cores)"
for chain in type "type,site(callers=1)"; do
    times=()
    for run in 1 2 3; do
        /usr/bin/time -f "%e %M" -o "$work/time" "$build/memcity" churn "$trace" --from 0 --to "$last" \
            --classify "$chain" --depth 1 >"$work/out"
        read -r s kb <"$work/time"
        times+=("$s")
        printf '  %-22s run %d: %6.2f s, peak %4d MiB   %s\n' "$chain" "$run" "$s" $((kb / 1024)) \
            "$(head -1 "$work/out" | grep -o '[0-9,]* objects ([^)]*) died within')"
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
    printf '  %-22s median %.2f s (target <= 5 s)\n' "$chain" "$median"
done
