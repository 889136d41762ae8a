#!/usr/bin/env bash
# bench_recorder.sh: what recording costs on real programs.
#
#   For javac compiling 10 JDK sources and the H2 database (10,000 rows through JDBC):
#   wall time plain (median of 3) and recorded at depth 8 with a snapshot after every GC, and at
#   depth 4 without snapshots; the ratio recorded/plain, allocation events per second while
#   recording, and trace bytes per allocation. All runs use the same JVM flags
#   (-XX:+UseSerialGC -XX:-DoEscapeAnalysis), as memcity record does.
#
#   Then the floor: the same program under bench/jvmti_floor_agent, which records nothing but makes
#   the JVMTI calls any per-allocation recorder must make (every allocation reported, each object
#   tagged so its death is reported, an 8- or 4-frame stack trace), to show how much of the
#   slowdown is HotSpot's and how much memcity's agent adds.
#
# usage: bench/bench_recorder.sh [BUILD_DIR]    (default: build; about 3 minutes)
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

# The JDK that compiles: Temurin 25 with its sources, else Debian's JDK 17 with openjdk-17-source.
jdk=/usr/lib/jvm/temurin-25-jdk-amd64 zip=$jdk/lib/src.zip
if [[ ! -f $zip ]]; then jdk=/usr/lib/jvm/java-17-openjdk-amd64 zip=/usr/lib/jvm/openjdk-17/lib/src.zip; fi
[[ -f $zip ]] || { echo "no JDK sources (scripts/setup installs them)" >&2; exit 1; }
files=(AbstractCollection AbstractList AbstractMap AbstractQueue AbstractSequentialList AbstractSet ArrayDeque ArrayList
       Collections HashMap)
(cd "$work" && "$jdk/bin/jar" xf "$zip" $(printf 'java.base/java/util/%s.java ' "${files[@]}"))
javac_cmd=("$jdk/bin/java" -m jdk.compiler/com.sun.tools.javac.Main --patch-module "java.base=$work/java.base"
           -d "$work/out")
for f in "${files[@]}"; do javac_cmd+=("$work/java.base/java/util/$f.java"); done

h2=/usr/share/java/h2.jar
[[ -f $h2 ]] || { echo "libh2-java is not installed (scripts/setup installs it)" >&2; exit 1; }
mkdir -p "$work/classes"
"$jdk/bin/javac" -d "$work/classes" tests/recorder/java/H2Workload.java tests/recorder/java/Zoo.java
h2_cmd=("$jdk/bin/java" -cp "$work/classes:$h2" H2Workload 10000)

seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
flags=(-XX:+UseSerialGC -XX:-DoEscapeAnalysis)

bench() {
    local name=$1; shift
    local cmd=("$@")
    local plain_cmd=("${cmd[0]}" "${flags[@]}" "${cmd[@]:1}")
    rm -rf "$work/out"; mkdir -p "$work/out"
    seconds "${plain_cmd[@]}" >/dev/null  # warm the page cache and the JDK's CDS
    local p1 p2 p3
    p1=$(rm -rf "$work/out"; mkdir -p "$work/out"; seconds "${plain_cmd[@]}")
    p2=$(rm -rf "$work/out"; mkdir -p "$work/out"; seconds "${plain_cmd[@]}")
    p3=$(rm -rf "$work/out"; mkdir -p "$work/out"; seconds "${plain_cmd[@]}")
    local plain; plain=$(median3 "$p1" "$p2" "$p3")
    printf '%-6s plain                      %6.2f s (median of 3)\n' "$name" "$plain"
    for config in "8 1" "4 off"; do
        set -- $config
        local trace="$work/$name-$1-$2.mct"
        rm -rf "$work/out"; mkdir -p "$work/out"
        # The agent straight on the java command line, as memcity record puts it, so that the time
        # is the program's alone (memcity record then reads the whole trace back for its summary).
        local t; t=$(seconds "${cmd[0]}" "-agentpath:$agent=file=$trace,depth=$1,refs=$2,quiet" "${flags[@]}" \
                         "${cmd[@]:1}")
        local objects bytes
        objects=$("$memcity" info "$trace" --json | sed -n 's/^  "objects_allocated": \([0-9]*\),/\1/p')
        bytes=$(stat -c %s "$trace")
        printf '%-6s memcity depth %s, refs %-3s  %6.2f s  %5.1fx   %5.2f M allocations/s   %5.1f trace bytes/allocation\n' \
            "$name" "$1" "$2" "$t" "$(echo "$t / $plain" | bc -l)" "$(echo "$objects / $t / 1000000" | bc -l)" \
            "$(echo "$bytes / $objects" | bc -l)"
    done
    for opts in events events,tag events,tag,stack=4 events,tag,stack=8; do
        rm -rf "$work/out"; mkdir -p "$work/out"
        local t; t=$(seconds "${cmd[0]}" "-agentpath:$floor=$opts" "${flags[@]}" "${cmd[@]:1}")
        printf '%-6s JVMTI floor: %-20s %6.2f s  %5.1fx\n' "$name" "$opts" "$t" "$(echo "$t / $plain" | bc -l)"
    done
}

echo "== recording cost ($(nproc) cores; JDK: $jdk)"
bench javac "${javac_cmd[@]}"
bench h2 "${h2_cmd[@]}"
echo "targets: javac depth 8 refs every GC <= 6x; refs off depth 4 <= 3x; <= 12 trace bytes per allocation"
