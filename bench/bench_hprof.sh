#!/usr/bin/env bash
# bench_hprof.sh: heap dumps into memcity (targets: import >= 100 MB of HPROF per second
# per core; a 1 GB dump's first picture in the window within 5 s).
#
#   1. A JVM holding about SIZE MiB of live objects of everyday kinds (bench/java/BigHeap.java:
#      a HashMap of records with strings and byte arrays, lists of boxed numbers, arrays) is
#      dumped with jcmd GC.heap_dump: the dump's size, and the pause (the JVM's own figure).
#   2. memcity import of the dump, three times with each of 1, 2 and all threads
#      (MEMCITY_THREADS): seconds (median), the speedup over 1 thread, MB/s of the wall time and
#      per core (per second of CPU time, user + system: the import reads the dump's segments and
#      makes its passes over every object on two threads), peak memory.
#   3. The dump opened in the window (memcity DUMP.hprof, an empty cache, under Xvfb), three
#      times: the first picture's time from when memcity started (the window imports the dump
#      and shows its heap once the objects are written), median.
#   4. The same dump opened again: from the cache.
#
# usage: bench/bench_hprof.sh [BUILD_DIR] [SIZE_MIB]   (default: build 620, a dump of about 1 GB;
#        the dump is kept in /tmp/memcity-bench and written once)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
size=${2:-620}
memcity="$build/memcity"
[[ -x $memcity ]] || { echo "build memcity first (scripts/build)" >&2; exit 1; }
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")}
dir=/tmp/memcity-bench
mkdir -p "$dir/classes"
dump=$dir/big-heap-$size.hprof

if [[ ! -f $dump ]]; then
    "$java_home/bin/javac" -d "$dir/classes" bench/java/BigHeap.java
    fifo=$dir/stdin.$$
    mkfifo "$fifo"
    "$java_home/bin/java" -Xmx6g -XX:+UseParallelGC -cp "$dir/classes" BigHeap "$size" <"$fifo" >"$dir/big.out" &
    exec 3>"$fifo"
    for _ in $(seq 1 600); do grep -q READY "$dir/big.out" 2>/dev/null && break; sleep 1; done
    pid=$(awk '/READY/{print $2}' "$dir/big.out")
    echo "== 1. dumping BigHeap $size (pid $pid): $(grep READY "$dir/big.out" | cut -d' ' -f3-)"
    "$java_home/bin/jcmd" "$pid" GC.heap_dump "$dump.tmp" | tail -1
    echo go >&3
    exec 3>&-
    wait
    rm -f "$fifo"
    mv "$dump.tmp" "$dump"
fi
bytes=$(stat -c %s "$dump")
echo "dump: $dump, $((bytes / 1000000)) MB"

# With 1, 2 and all threads (MEMCITY_THREADS; the import reads a big dump's segments on two
# threads where it has two or more, so all takes as long as 2).
all=$(nproc)
counts=(1)
[[ $all -ge 2 ]] && counts+=(2)
[[ $all -gt 2 ]] && counts+=("$all")
one_thread=
for threads in "${counts[@]}"; do
    echo "== 2. memcity import, MEMCITY_THREADS=$threads (three runs)"
    times=()
    cpus=()
    for run in 1 2 3; do
        out=$( { MEMCITY_THREADS=$threads /usr/bin/time -f "time %e %U %S %M" "$memcity" import "$dump" \
            -o "$dir/big-import.mct" >/dev/null; } 2>&1)
        read -r _ wall user sys rss <<<"$(grep '^time' <<<"$out")"
        echo "run $run: ${wall} s wall, ${user} s user, ${sys} s system, $((rss / 1024)) MiB peak"
        times+=("$wall")
        cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')")
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
    cpu=$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n 2p)
    one_thread=${one_thread:-$median}
    awk -v b="$bytes" -v t="$median" -v c="$cpu" -v n="$threads" -v o="$one_thread" 'BEGIN {
        printf "import, %d thread(s): median %.2f s, %.0f MB/s (%.2fx of 1 thread); %.2f s of CPU, %.0f MB/s per core (target >= 100)\n", n, t, b / 1e6 / t, o / t, c, b / 1e6 / c }'
done

echo "== 3. the dump opened in the window (three runs, each with an empty cache)"
# The window imports the dump itself and follows the trace the import writes: the first picture
# (its city) is on screen once the objects are written, while the import writes the references.
# Counted from when the memcity process started; the import's own end is "trace loaded".
cache=$(mktemp -d)
script=$(mktemp)
trap 'rm -rf "$cache" "$script"' EXIT
printf 'wait\nprint timing\n' >"$script"
firsts=()
for run in 1 2 3; do
    rm -rf "$cache/memcity"
    XDG_CACHE_HOME=$cache xvfb-run -a -s "-screen 0 1600x1000x24" "$memcity" "$dump" --size 1280x720 \
        --script "$script" >"$cache/window.out" 2>"$cache/window.err"
    first=$(sed -n 's/.*(\([0-9.]*\) s after memcity started).*/\1/p' "$cache/window.out")
    loaded=$(sed -n 's/^timing: trace loaded in \([0-9.]*\) s.*/\1/p' "$cache/window.out")
    echo "run $run: first picture ${first} s after memcity started; the import and the load done after ${loaded} s"
    firsts+=("$first")
done
first_median=$(printf '%s\n' "${firsts[@]}" | sort -n | sed -n 2p)
echo "first picture: median ${first_median} s (target <= 5 s)"

echo "== 4. the dump opened again (its import from the cache)"
XDG_CACHE_HOME=$cache xvfb-run -a -s "-screen 0 1600x1000x24" "$memcity" "$dump" --size 1280x720 \
    --script "$script" >"$cache/window.out" 2>"$cache/window.err"
grep -E "^timing: (trace loaded|first GC)" "$cache/window.out"
