#include <iostream>

#include "cli/commands.h"

namespace memcity::cli {

const std::vector<CommandHelp>& commandHelp() {
    static const std::vector<CommandHelp> commands = {
        {"open", "show a trace: summary, live heap over time, biggest types (the default)",
         R"(usage: memcity [FILE] [--gc N]
       memcity open [FILE] [--gc N]

Shows a trace: what was recorded, the live and reachable heap at every GC as a chart,
and the types holding the most memory at the peak GC (or at GC N).
Without FILE, opens the bundled demo trace.

options:
  --gc N       list the biggest types at GC N instead of the peak
  -h, --help   this help
)"},
        {"info", "what a trace holds, and whether it is sound",
         R"(usage: memcity info FILE [--json]

Reads the whole trace and reports: format version, producer, time span, events by kind,
GCs, objects and bytes allocated, peak live objects and bytes, symbol counts, chunks,
and integrity diagnostics (deaths of unknown objects, double deaths, GC events out of
order, a cut-off tail, ...).

exit status: 0 sound (a cut-off tail only warns), 1 unreadable, 2 read but the trace
contradicts itself (each problem is printed on stderr with its file offset).

options:
  --json       print JSON instead of text (docs/cli.md describes its shape)
  -h, --help   this help
)"},
        {"gcs", "the per-GC series: live, allocated, freed, reachable, pauses",
         R"(usage: memcity gcs FILE [--from A] [--to B] [--json]

One row per GC: its kind and cause, end time, pause, live objects and bytes after it,
objects and bytes allocated since the previous GC, freed by it, and, where a reference
snapshot was taken, the bytes reachable from GC roots.

options:
  --from A     first GC to list (default 0)
  --to B       last GC to list (default: the last one)
  --json       print JSON instead of a table (docs/cli.md describes its shape)
  -h, --help   this help
)"},
        {"record", "record a Java program's heap into a trace",
         R"(usage: memcity record -o FILE [--depth N] [--refs N|off] [--no-final-gc] -- java ARGS...

Runs the program with memcity's JVMTI agent and records every allocation (type, size,
array length, thread, allocation site with N frames), every death, every GC, and after
every Nth GC the references between objects and the GC roots. Unless the program's
arguments choose otherwise, the JVM runs with -XX:+UseSerialGC (clean stop-the-world GC
points) and -XX:-DoEscapeAnalysis (repeatable allocation counts). When the command is not
the java launcher itself (a script), the agent is passed through JAVA_TOOL_OPTIONS, and
every JVM it starts is recorded: the first into FILE, the others beside it (app.PID.mct
for app.mct).

memcity exits with the program's exit status, after a summary of the trace.

options:
  -o, --output FILE   where to write the trace (required)
  --depth N           frames per allocation site (default 8)
  --refs N|off        reference snapshot after every Nth GC (default 1), or none
  --no-final-gc       no GC at exit (the last deaths then go unrecorded)
  -h, --help          this help
)"},
        {"report", "the heap at one GC as a classification tree: type, site, thread, age...",
         R"(usage: memcity report FILE [--gc N] [--classify CHAIN] [--filter EXPR]
                      [--metric objects|bytes] [--depth D] [--all] [--json]

Groups the live objects at GC N (default: the last GC) by a chain of classifiers, one tree
level each, and prints the tree with objects and bytes per group. Children are listed largest
first until they hold 90% of their parent, at most 9; the rest are summed up as "Other".

CHAIN is a comma-separated list (default type,site); docs/classifiers.md describes each:
  type             the object's type
  package(depth=N) the type's package, outermost first (default: all levels)
  site(callers=N)  the allocating frame, then N of its callers (default 0)
  calls            every method on the allocating stack (an object counts under each once)
  thread           the allocating thread
  age              GCs survived (1: born since the previous GC)
  length(buckets=1) array length, exact or in power-of-two buckets
  kind(big=N)      instance, small array, big array (length >= N, default 256)
  size             object size in power-of-two buckets
  {EXPR}           the value of an expression, e.g. {site.method} or {size > 1k}

options:
  --gc N          the GC whose heap to classify (default: the last)
  --classify C    the classifier chain (default type,site)
  --filter EXPR   classify only the objects for which EXPR is true (docs/expressions.md),
                  e.g. 'type ~ "java.util.*" && age >= 3'
  --metric M      objects or bytes: what orders the groups (default bytes)
  --depth D       levels to show below the root (default: all)
  --all           every group, no "Other"
  --json          print JSON instead (docs/cli.md describes its shape)
  -h, --help      this help
)"},
        {"diff", "born, died and permanent objects between two GCs, by group",
         R"(usage: memcity diff FILE --from A --to B [--classify CHAIN] [--filter EXPR]
                    [--metric objects|bytes] [--depth D] [--all] [--json]

Compares the heaps of GC A and GC B: objects live at B only were born, those live at A only
died, those live at both are permanent (ICPE'18, 5.3). They are grouped by a classifier chain
(default type; see 'memcity report --help'): born and permanent objects as they are at B, dead
ones as they were at A. Each level lists its 9 largest groups, the rest as "Other".

options:
  --from A, --to B  the two GCs (A <= B)
  --classify C      the classifier chain (default type)
  --filter EXPR     compare only the objects for which EXPR is true
  --metric M        objects (the default) or bytes
  --depth D         levels to show below the root (default: all)
  --all             every group
  --json            print JSON instead (docs/cli.md describes its shape)
  -h, --help        this help
)"},
        {"series", "every GC of a window as one tree: each group's size over time, growth first",
         R"(usage: memcity series FILE [--classify CHAIN] [--filter EXPR] [--from A] [--to B]
                      [--sort start|end|growth] [--metric objects|bytes] [--depth D] [--all] [--json]

Classifies the live objects of every GC from A to B (default: all GCs) by a chain of
classifiers (default type,site; see 'memcity report --help') and merges the trees into one:
a group keeps its place at every GC, also when it vanishes and comes back (STAG'20, 5).
Each row shows the group's size at the first and the last GC, its growth, and its size over
time as a small chart (one column per GC, or the largest of a few GCs per column).

One order of the children holds for the whole window: by growth (last minus first, the
default), by size at the first GC (start) or at the last (end). Each level shows the first
children in that order until they hold 90% of their parent at every GC, at most 9; the rest
are summed up as "Other".

options:
  --classify C      the classifier chain (default type,site)
  --filter EXPR     classify only the objects for which EXPR is true
  --from A, --to B  the first and last GC (default: the whole trace)
  --sort S          growth (default), start or end
  --metric M        objects or bytes (default): what is sorted and shown
  --depth D         levels to show below the root (default: all)
  --all             every group, no "Other"
  --json            print JSON instead: the tree with per-GC arrays (docs/cli.md)
  -h, --help        this help
)"},
        {"synth", "write a synthetic trace with exactly known answers",
         R"(usage: memcity synth SCENARIO -o FILE [--scale N] [--seed S] [--refs N|off] [--no-compress]
       memcity synth --list

Scenarios (docs/scenarios.md gives each one's expected answers):
  buggy-stack   a stack whose pop keeps references (ICPE'18, 5.3)
  multi-cache   products held by two static maps: shared ownership (ManLang'18, 5.1)
  growing-map   a cache whose key lacks equals/hashCode (STAG'20, 7.2)
  churn         a burst of short-lived objects between calm phases
  gc-hotspot    a phase in which most objects survive
  steady        a server with bounded caches: no leak
  big-heap      tens of millions of objects: the benchmark workload

options:
  -o, --output FILE   where to write the trace (required)
  --scale N           multiply the program's work by N (default 1)
  --seed S            vary incidental garbage (default 1); the answers do not change
  --refs N|off        reference snapshot after every Nth GC (default 1), or none
  --no-compress       write chunks without zstd
  --list              list the scenarios
  -h, --help          this help
)"},
    };
    return commands;
}

const CommandHelp* findCommand(std::string_view name) {
    for (const CommandHelp& c : commandHelp())
        if (c.name == name) return &c;
    return nullptr;
}

int printHelp(std::string_view name) {
    const CommandHelp* c = findCommand(name);
    if (c) std::cout << c->usage;
    return 0;
}

}  // namespace memcity::cli
