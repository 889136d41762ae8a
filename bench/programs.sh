# programs.sh: the real programs the recorder benchmarks run, sourced by bench_recorder.sh and
# bench_sampled.sh. Needs $work (a scratch directory); sets $jdk and the command arrays:
#   javac_cmd  javac compiling ten JDK sources (from the JDK's lib/src.zip) into $work/out
#   h2_cmd     the H2 database, 10,000 rows through JDBC (tests/recorder/java/H2Workload)
#   loop_cmd   bench/java/RequestLoop, 40 M requests, with $service_flags (a fixed 2 GiB heap
#              touched up front, as a service runs)
# and compiles the benchmarks' own Java programs into $work/classes.

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
"$jdk/bin/javac" -d "$work/classes" tests/recorder/java/H2Workload.java tests/recorder/java/Zoo.java \
    bench/java/RequestLoop.java
h2_cmd=("$jdk/bin/java" -cp "$work/classes:$h2" H2Workload 10000)
service_flags=(-Xms2g -Xmx2g -XX:+AlwaysPreTouch)
loop_cmd=("$jdk/bin/java" "${service_flags[@]}" -cp "$work/classes" RequestLoop 40000000r)
