#include <algorithm>
#include <iostream>
#include <string>
#include <utility>

#include "cli/commands.h"

namespace memcity::cli {

const std::vector<CommandHelp>& commandHelp() {
    static const std::vector<CommandHelp> commands = {
        {"open",
         "explore a trace in a window; the terminal overview without a display (the default)",
         R"(usage: memcity [FILE] [--gc N] [--classify CHAIN] [--filter EXPR] [--metric objects|bytes]
               [--sort start|end|growth] [--view V] [--size WxH]
               [--script FILE] [--no-vsync] [--validate] [--settings FILE|-] [--text]
       memcity open [FILE] [--gc N]        the terminal overview

With a display, opens the explorer window: the trace loads in the background (the first
GC shows as soon as it is rebuilt), the memory city, sunburst and icicle of the classifier
chain, the timeline, the tree table and the inspector (docs/explorer.md). Without a display,
or with --text, prints the terminal overview: what was recorded, the live heap at every GC
as a chart, and the types holding the most memory at the peak GC (or at GC N).
Without FILE, opens the bundled demo trace.

)",
         {
             {"--gc", "N", "", "start at GC N (the overview: list the biggest types at GC N)"},
             {"--classify", "CHAIN", "", "the classifier chain (default: package,type; docs/classifiers.md)"},
             {"--filter", "EXPR", "", "keep only the objects EXPR accepts (docs/expressions.md)"},
             {"--metric", "M", "", "objects or bytes (default bytes)"},
             {"--sort", "S", "", "the order of siblings: start, end or growth (default growth)"},
             {"--view", "V", "",
              "city, sunburst, icicle, timeline-trees or heapmap (default: the last one used)"},
             {"--size", "WxH", "", "the window's size (default: the last one used)"},
             {"--script", "FILE", "", "run the commands of FILE in the window, then quit (docs/explorer.md)"},
             {"--no-vsync", "", "", "draw as fast as possible"},
             {"--validate", "", "", "the Vulkan validation layer on"},
             {"--settings", "FILE", "",
              "read and write settings there ('-': neither; default\n~/.config/memcity/settings.ini, "
              "$MEMCITY_SETTINGS)"},
             {"--text", "", "", "the terminal overview even with a display"},
         },

         [](const Words& a, const Services&) { return runOverview(a); }},
        {"info",
         "what a trace holds, and whether it is sound",
         R"(usage: memcity info FILE [--json]

Reads the whole trace and reports: format version, producer, time span, events by kind,
GCs, objects and bytes allocated, peak live objects and bytes, symbol counts, chunks,
and integrity diagnostics (deaths of unknown objects, double deaths, GC events out of
order, a cut-off tail, ...).

exit status: 0 sound (a cut-off tail only warns), 1 unreadable, 2 read but the trace
contradicts itself (each problem is printed on stderr with its file offset).

)",
         {
             {"--json", "", "", "print JSON instead of text (docs/cli.md describes its shape)"},
         },

         [](const Words& a, const Services&) { return runInfo(a); }},
        {"gcs",
         "the per-GC series: live, allocated, freed, reachable, pauses",
         R"(usage: memcity gcs FILE [--from A] [--to B] [--json]

One row per GC: its kind and cause, end time, pause, live objects and bytes after it,
objects and bytes allocated since the previous GC, freed by it, and, where a reference
snapshot was taken, the bytes reachable from GC roots.

)",
         {
             {"--from", "A", "", "first GC to list (default 0)"},
             {"--to", "B", "", "last GC to list (default: the last one)"},
             {"--json", "", "", "print JSON instead of a table (docs/cli.md describes its shape)"},
         },

         [](const Words& a, const Services&) { return runGcs(a); }},
        {"spaces",
         "the collector's spaces at each GC, and where the objects lie in them",
         R"(usage: memcity spaces FILE [--gc N [--tile BYTES] [--json]]

Without --gc: one row per GC with each of the collector's spaces, its used bytes before and
after the GC and its capacity (@ marks the GCs whose objects' addresses the trace has). With --gc: that GC's spaces with
their bounds, and where the trace has addresses, the objects in each, the bytes between them
and any that overlap; --json adds the tiles of BYTES each (docs/heapmap.md).

)",
         {
             {"--gc", "N", "", "one GC's spaces and objects"},
             {"--tile", "BYTES", "", "tile size of --json's tiles (default 64k)"},
             {"--json", "", "", "print JSON instead of a table (with --gc)"},
         },

         [](const Words& a, const Services&) { return runSpaces(a); }},
        {"record",
         "record a Java program's heap into a trace",
         R"(usage: memcity record -o FILE [--sampled [--interval BYTES]] [--depth N] [--refs N|P%|off]
                     [--gc-every BYTES] [--no-final-gc] [--sites walk|jvmti|check]
                     [--live [--script FILE]] -- java ARGS...

Runs the program with memcity's JVMTI agent and records every allocation (type, size,
array length, thread, allocation site with N frames), every death, every GC, and after
every Nth GC the references between objects and the GC roots. Unless the program's
arguments choose otherwise, the JVM runs with -XX:+UseSerialGC (clean stop-the-world GC
points) and -XX:-DoEscapeAnalysis (repeatable allocation counts).

With --sampled, for a busy service: the JVM's heap sampler picks one allocation per 512 KiB
(--interval) on average, each with its site and thread, and its death is recorded as before;
every view then shows estimates with their intervals. The JVM keeps its own flags, the
program runs within about 5% of its plain speed, and a class census after every full GC (and
at young GCs, within 1% of the run) makes the per-type figures exact there. Reference
snapshots only where asked for: --refs N or --refs P% (the walks kept within P% of the run's
time), or 'memcity snapshot PID' while it runs; each walks the whole heap (seconds for
gigabytes) and makes that GC's heap whole, with its roots, paths and retained sizes.
docs/recorder.md, "Sampled recording", says how to choose. When the command is not
the java launcher itself (a script), the agent is passed through JAVA_TOOL_OPTIONS, and
every JVM it starts is recorded: the first into FILE, the others beside it (app.PID.mct
for app.mct).

memcity exits with the program's exit status, after a summary of the trace.

)",
         {
             {"--output", "FILE", "-o", "where to write the trace (required)"},
             {"--sampled", "", "", "record a sample of the allocations, at production cost (above)"},
             {"--interval", "BYTES", "",
              "with --sampled: one sample per BYTES allocated on average (default 512k)"},
             {"--depth", "N", "", "frames per allocation site (default 8)"},
             {"--refs", "N|P%|off", "",
              "reference snapshot after every Nth GC (default 1; with --sampled off),\nwherever the walks "
              "stay within P% of the run's time, or none"},
             {"--gc-every", "BYTES", "",
              "a young GC after about BYTES allocated (e.g. 4m): the young generation\nsized to it, so that "
              "a short program has GCs to travel through"},
             {"--no-final-gc", "", "", "no GC at exit (the last deaths then go unrecorded)"},
             {"--sites", "MODE", "",
              "how allocation sites are read: walk (default) from the JVM's own frames,\nasking JVMTI only "
              "for a stack not seen before; jvmti asks JVMTI every time\n(slower); check does both for every "
              "allocation and reports any site\nthat differs (a self-test of the recorder)"},
             {"--live", "", "",
              "show the trace while it is written: the explorer window, GC by GC\n(closing it does not stop "
              "the program), or without a display a line\nper GC (time, live bytes, pause)"},
             {"--script", "FILE", "",
              "with --live: drive the window with a script (see 'memcity open --help')"},
         },

         [](const Words& a, const Services& s) { return runRecord(a, s.live); }},
        {"attach",
         "record a JVM that is already running, from now on",
         R"(usage: memcity attach PID -o FILE [--sampled [--interval BYTES]] [--depth N] [--refs N|P%|off]
                     [--sites walk|jvmti|check] [--seconds S] [--live [--script FILE]]

Loads memcity's recorder into the running HotSpot JVM PID (JDK 17 or newer, of your own user)
through the JVM's attach mechanism, and records from then on, as 'memcity record' does: every
allocation with its site, every death, every GC, the references after every Nth GC. Objects
alive when it attaches are "allocated before recording" (no site). Attaching costs one full GC
and a walk of the heap; the program runs on. With --sampled (see 'memcity record --help') only
the walk, which picks the objects already there by the sampler's law: no GC is forced.

Recording stops after --seconds, at Ctrl-C, when the window of --live is closed, when
'memcity detach PID' is run, or when the JVM exits; the trace is then finished and the JVM goes
on, with everything the recorder turned on turned off. memcity then prints a summary.

Refused in one line, with exit status 1: a process that is not a JVM, a JVM of another user, one
started with -XX:+DisableAttachMechanism, one that memcity records already. JDK 21 and later
print a warning about dynamically loaded agents on the program's stderr.

)",
         {
             {"--output", "FILE", "-o", "where to write the trace (required)"},
             {"--sampled", "", "", "record a sample of the allocations, at production cost"},
             {"--interval", "BYTES", "",
              "with --sampled: one sample per BYTES allocated on average (default 512k)"},
             {"--depth", "N", "", "frames per allocation site (default 8)"},
             {"--refs", "N|P%|off", "",
              "reference snapshot after every Nth GC (default 1; with --sampled off),\nwherever the walks "
              "stay within P% of the run's time, or none"},
             {"--sites", "MODE", "", "walk (default), jvmti or check (see 'memcity record --help')"},
             {"--seconds", "S", "", "stop recording after S seconds"},
             {"--live", "", "",
              "show the trace as it is written: the explorer window (pause, step and\nresume the program "
              "there), or without a display a line per GC"},
             {"--script", "FILE", "",
              "with --live: drive the window with a script (see 'memcity open --help')"},
         },

         [](const Words& a, const Services& s) { return runAttach(a, s.live); }},
        {"detach",
         "stop recording a JVM that memcity records; it goes on running",
         R"(usage: memcity detach PID

Ends the recording of the JVM PID (started by 'memcity attach' or by 'memcity record'): the
trace is finished, and the JVM goes on without the recorder. Exit status 1, with one line, when
memcity does not record PID.

)",
         {},

         [](const Words& a, const Services&) { return runDetach(a); }},
        {"snapshot",
         "ask a JVM that memcity records for a reference snapshot",
         R"(usage: memcity snapshot PID [--now]

Asks the recorder of the JVM PID (started by 'memcity attach' or 'memcity record') for a
reference snapshot at the next GC it writes: every object and reference, and the GC roots, so
that retained sizes, roots and paths are known at that GC. A sampled recording takes none
unless asked, and its snapshot makes that GC's heap whole: the objects that are no samples are
listed too. The walk stops the program a while: some 0.4 us per object, 12 s for a heap of
1 GiB in 37 million objects (a dozen full GCs of it; docs/recorder.md).

With --now, memcity forces that GC and waits until the snapshot is written, then says which GC
has it. Exit status 1, with one line, when memcity does not record PID, when the program is
paused (step it: the next GC has the snapshot), or when the snapshot was missed three times
(each time another GC overtook the walk, and memcity forced one more).

)",
         {
             {"--now", "", "", "force a GC now, and wait until its snapshot is written"},
         },

         [](const Words& a, const Services&) { return runSnapshot(a); }},
        {"report",
         "the heap at one GC as a classification tree: type, site, thread, age...",
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
  plugin(path=F,...) a classifier from a shared library F (docs/plugins.md)
These read the references, so they need a GC with a reference snapshot:
  rooted           the GC roots referencing the object: kind, class, static field / thread, method
  roots            the closest GC roots reaching it ("alive, root not reported" when none)
  structure        the data structure holding it: java.util.HashMap (allocated in ...)
  in-degree        references to it, in buckets; out-degree: references it holds
  points-to(C)     the objects it references, classified by chain C (default type)
  pointed-from(C)  the objects referencing it, classified by chain C

)",
         {
             {"--gc", "N", "",
              "the GC whose heap to classify (default: the last; with references or\n--retained, the last GC "
              "with a reference snapshot)"},
             {"--classify", "C", "", "the classifier chain (default type,site)"},
             {"--filter", "EXPR", "",
              "classify only the objects for which EXPR is true (docs/expressions.md),\ne.g. 'type ~ "
              "\"java.util.*\" && age >= 3'"},
             {"--metric", "M", "", "objects or bytes: what orders the groups (default bytes)"},
             {"--depth", "D", "", "levels to show below the root (default: all)"},
             {"--all", "", "", "every group, no \"Other\""},
             {"--retained", "", "",
              "add each shown group's deep size (everything it reaches) and retained size\n(what would be "
              "freed with it), from the GC's reference snapshot"},
             {"--json", "", "", "print JSON instead (docs/cli.md describes its shape)"},
         },

         [](const Words& a, const Services&) { return runReport(a); }},
        {"inspect",
         "one object group: deep and retained size, its GC roots, paths to them",
         R"(usage: memcity inspect FILE [--gc N] [--classify CHAIN] [--filter EXPR]
                       [--node PATH[;PATH...]] [--paths K] [--closure-by CHAIN] [--json]

Inspects an object group at GC N (default: the last GC with a reference snapshot): one or
several nodes of the classification tree (as 'memcity report' shows it), given by their
labels from the top, separated by '/'; several nodes are separated by ';' and inspected as one
group (shared ownership). Without --node the whole heap.

Prints the group's objects and shallow size, its deep size (its transitive closure: all it
reaches), its retained size (its GC closure: what would be freed if the group were), objects
alive that no reported root reaches, the GC roots referencing it directly, the closest roots
of its objects, every root that reaches it, the shortest paths from its objects to a root aggregated by type (a run of one
type, as in a linked list, is one step), what it retains by type, and the group's objects that
retain the most on their own (their dominator subtrees) (ManLang18, 3-4).

)",
         {
             {"--gc", "N", "", "the GC (it must have a reference snapshot; 'memcity gcs' marks them)"},
             {"--classify", "C", "", "the classifier chain the node paths refer to (default type,site)"},
             {"--filter", "EXPR", "", "classify only the objects for which EXPR is true"},
             {"--node", "PATHS", "", "e.g. 'java.util.HashMap / IdCache.<clinit>(IdCache.java:9)'"},
             {"--paths", "K", "", "root paths to list (default 10)"},
             {"--closure-by", "C", "",
              "also the deep and retained closures and the rooted objects reaching the\ngroup, each "
              "classified by chain C (two levels)"},
             {"--json", "", "", "print JSON instead (docs/cli.md describes its shape)"},
         },

         [](const Words& a, const Services&) { return runInspect(a); }},
        {"dominators",
         "the dominator tree at a GC: what holds the heap, by retained size",
         R"(usage: memcity dominators FILE [--gc N] [--depth K] [--top M] [--group-by CHAIN] [--json]

Prints the immediate-dominator tree of the heap at GC N (default: the last GC with a reference
snapshot), as Eclipse MAT's and VisualVM's dominator tree: first the objects no single object
dominates (rooted objects, objects several roots share), then what each of them dominates, K
levels deep. Each row gives what it retains (the objects that would be freed with it: its
dominator subtree), as objects, bytes and a share of the live heap, and its own shallow bytes.
Rows are sorted by retained bytes; M rows a level, the rest summed in one '… N more' row.
With --group-by each level's objects are grouped by the chain (MAT's "group by class"): level
d by the chain's d-th classifier, the last one for the levels below; a group expands into what
its objects dominate. A sampled trace's tree is of the whole heap at the snapshot (exact).
docs/dominators.md explains the tree and the 'dominator' classifier.

)",
         {
             {"--gc", "N", "", "the GC (it must have a reference snapshot; 'memcity gcs' marks them)"},
             {"--depth", "K", "", "levels of the tree to print (default 2, at most 64)"},
             {"--top", "M", "", "rows a level (default 10); the rest are summed in one row"},
             {"--group-by", "C", "", "group each level's objects by classifier chain C, e.g. type"},
             {"--json", "", "", "print JSON instead (docs/dominators.md describes its shape)"},
         },
         [](const Words& a, const Services&) { return runDominators(a); }},
        {"diff",
         "born, died and permanent objects between two GCs, by group",
         R"(usage: memcity diff FILE --from A --to B [--classify CHAIN] [--filter EXPR]
                    [--metric objects|bytes] [--depth D] [--all] [--json]

Compares the heaps of GC A and GC B: objects live at B only were born, those live at A only
died, those live at both are permanent (ICPE18, 5.3). They are grouped by a classifier chain
(default type; see 'memcity report --help'): born and permanent objects as they are at B, dead
ones as they were at A. Each level lists its 9 largest groups, the rest as "Other".
Classifiers that read references (structure, roots, ...) need a reference snapshot at both GCs.

)",
         {
             {"--from", "A", "", ""},
             {"--to", "B", "", "the two GCs (A <= B)"},
             {"--classify", "C", "", "the classifier chain (default type)"},
             {"--filter", "EXPR", "", "compare only the objects for which EXPR is true"},
             {"--metric", "M", "", "objects (the default) or bytes"},
             {"--depth", "D", "", "levels to show below the root (default: all)"},
             {"--all", "", "", "every group"},
             {"--json", "", "", "print JSON instead (docs/cli.md describes its shape)"},
         },

         [](const Words& a, const Services&) { return runDiff(a); }},
        {"churn",
         "the objects born and dead within a window of GCs, by cause",
         R"(usage: memcity churn FILE --from A --to B [--classify CHAIN] [--filter EXPR]
                     [--metric objects|bytes] [--depth D] [--all] [--json]

The short-lived objects analysis (VMIL19, 3.4.2): the objects born after GC A ended and
before GC B ended, split into those that died within the window (at a GC after A, up to B)
and those still alive at B, grouped by a classifier chain (default type; see 'memcity report
--help') that reads no references. Each group shows what died within the window, that as a rate
over the window's time, and what survived; the groups that churn most come first. The rebuilt
heaps hold only survivors: churn replays the window's deaths to see the others. Classifiers
see every object as the heap of GC B would (age counts GCs up to B).

)",
         {
             {"--from", "A", "", ""},
             {"--to", "B", "", "the window (A < B); 'memcity windows' suggests one"},
             {"--classify", "C", "", "the classifier chain (default type)"},
             {"--filter", "EXPR", "", "only the objects for which EXPR is true"},
             {"--metric", "M", "", "objects (the default) or bytes"},
             {"--depth", "D", "", "levels to show below the root (default: all)"},
             {"--all", "", "", "every group"},
             {"--json", "", "", "print JSON instead (docs/cli.md describes its shape)"},
         },

         [](const Words& a, const Services&) { return runChurn(a); }},
        {"export",
         "per-allocation-stack values as collapsed stacks or a pprof profile",
         R"(usage: memcity export FILE (--gc N | --from A --to B) --what W --format F
                      [--unit bytes|objects] [--stacks N] -o FILE

Writes one value per allocation stack (the allocating frame and all its recorded callers) for
flame graph tools: collapsed stacks ("outer;...;allocating N" lines, for flamegraph.pl and
speedscope) or a gzipped pprof profile (for 'go tool pprof', Pyroscope, Grafana). W is
  live       the live objects at GC N (or B), as 'memcity report' counts them
  retained   what each stack's live objects retain at GC N (or B), as 'report --retained'
             gives it for that group; needs a reference snapshot there. Retained sets overlap:
             their sum is no total. The --stacks N stacks with the most live bytes get one each,
             the others one '<other stacks>' line together
  allocated  the objects born in the window (after GC A ended, by GC B), dead or alive at B,
             as 'memcity churn' counts them; with --gc N, the window from GC N-1 to N
  churn      the objects born and dead in the window ('memcity churn''s died within)
A sampled recording's values are estimates (said on stderr and in the pprof comments).
docs/export.md shows how to open the files.

)",
         {
             {"--gc", "N", "", "the heap at GC N (for allocated and churn: GC N-1 to N)"},
             {"--from", "A", "", ""},
             {"--to", "B", "", "a window of GCs (A < B)"},
             {"--what", "W", "", "allocated, live, retained or churn (required)"},
             {"--format", "F", "", "collapsed or pprof (required)"},
             {"--unit", "U", "", "bytes (the default) or objects: collapsed's values, pprof's default"},
             {"--stacks", "N", "",
              "retained: the N stacks with the most live bytes each closed (default 200)"},
             {"--output", "FILE", "-o", "the file to write (required; - for standard output)"},
         },
         [](const Words& a, const Services&) { return runExport(a); }},
        {"windows",
         "suspicious time windows: memory leak, high GC overhead, high churn",
         R"(usage: memcity windows FILE [--json] [--leak-method regression|heuristic|both]
                       [--leak-series auto|reachable|live|full-gc] [--min-overhead PCT]
                       [--min-gcs N] [--max-gcs N] [--min-growth PCT] [--min-r2 X]
                       [--min-points N] [--churn freed|short-lived] [--min-churn-ratio X]
                       [--no-narrow] [--paper]

Finds the time windows to look at first (VMIL19; docs/windows.md explains how):
  memory leak      memory that keeps growing up to the end of the run, on the reachable
                   memory of the GCs with a reference snapshot (on the live memory when there
                   are too few): the steepest regression line, and the longest stretch of
                   growth with small dips allowed; each with its steepest part
  high GC overhead the window of 5..50 GCs with the highest share of time in GC pauses,
                   shown when that share is at least 10%
  high churn       the window of 5..50 GCs that frees short-lived memory fastest, shown
                   when that is at least 3 times the whole run's rate
Each window is printed with the figures behind it and why it was chosen; kinds without a
window say why not.

)",
         {
             {"--leak-method", "M", "", "regression, heuristic or both (default both)"},
             {"--leak-series", "S", "", "auto (default), reachable, live or full-gc (what full GCs leave)"},
             {"--min-overhead", "PCT", "",
              "keep a GC-overhead window from PCT% of the time in pauses (default 10)"},
             {"--min-gcs", "N", "", "GCs in a GC-overhead or churn window, at least (default 5)"},
             {"--max-gcs", "N", "", "... and at most (default 50)"},
             {"--min-growth", "PCT", "",
              "a leak window grows by PCT% of its first value, at least (default 10)"},
             {"--min-r2", "X", "",
              "a leak window's regression line explains X of its variance (default 0.5)"},
             {"--min-points", "N", "", "points of the series in a leak window, at least (default 3)"},
             {"--churn", "M", "",
              "short-lived (default: freed bytes, at most those allocated since the\nGC before) or freed "
              "(every freed byte, as the paper counts)"},
             {"--min-churn-ratio", "X", "",
              "keep a churn window at X times the whole run's rate (default 3)"},
             {"--no-narrow", "", "", "do not look for the steepest part of each leak window"},
             {"--paper", "", "",
              "the paper's algorithms exactly: no growth, r² or churn-ratio test,\n2 points suffice, churn "
              "counts freed bytes (options given still apply)"},
             {"--json", "", "", "print JSON instead (docs/cli.md describes its shape)"},
         },

         [](const Words& a, const Services&) { return runWindows(a); }},
        {"suspects",
         "one leak-suspects report: leak window, accumulation point, root path, sites",
         R"(usage: memcity suspects FILE [--gc N] [--format text|md|html|json] [-o FILE]

One run, one report (MAT's Leak Suspects; docs/suspects.md explains how): the leak window
of reachable memory and its growth, the accumulation point (the object whose dominator
subtree holds the growth) with its retained size, the shortest path of strong references
from a GC root to it, the allocation sites (with callers) and threads that feed it, and the
biggest retained groups at the GC, each finding with its numbers. A trace without a leak
says so. html is one self-contained file with the timeline chart and the city inlined.

)",
         {
             {"--gc", "N", "", "the snapshot GC to analyse (default: the last with a reference snapshot)"},
             {"--format", "F", "", "text (default), md, html or json"},
             {"--output", "FILE", "-o", "write the report to FILE instead of stdout"},
         },

         [](const Words& a, const Services&) { return runSuspects(a); }},
        {"series",
         "every GC of a window as one tree: each group's size over time, growth first",
         R"(usage: memcity series FILE [--classify CHAIN] [--filter EXPR] [--from A] [--to B]
                      [--sort start|end|growth] [--metric objects|bytes] [--depth D] [--all] [--json]

Classifies the live objects of every GC from A to B (default: all GCs) by a chain of
classifiers (default type,site; see 'memcity report --help') and merges the trees into one:
a group keeps its place at every GC, also when it vanishes and comes back (STAG20, 5).
Each row shows the group's size at the first and the last GC, its growth, and its size over
time as a small chart (one column per GC, or the largest of a few GCs per column).
With classifiers that read references (structure, roots, ...), only the GCs of the window
that have a reference snapshot.

One order of the children holds for the whole window: by growth (last minus first, the
default), by size at the first GC (start) or at the last (end). Each level shows the first
children in that order until they hold 90% of their parent at every GC, at most 9; the rest
are summed up as "Other".

)",
         {
             {"--classify", "C", "", "the classifier chain (default type,site)"},
             {"--filter", "EXPR", "", "classify only the objects for which EXPR is true"},
             {"--from", "A", "", ""},
             {"--to", "B", "", "the first and last GC (default: the whole trace)"},
             {"--sort", "S", "", "growth (default), start or end"},
             {"--metric", "M", "", "objects or bytes (default): what is sorted and shown"},
             {"--depth", "D", "", "levels to show below the root (default: all)"},
             {"--all", "", "", "every group, no \"Other\""},
             {"--json", "", "", "print JSON instead: the tree with per-GC arrays (docs/cli.md)"},
         },

         [](const Words& a, const Services&) { return runSeries(a); }},
        {"render",
         "draw the city, sunburst, icicle, timeline or timeline trees at a GC, or an animation, to PNG",
         R"(usage: memcity render FILE [--view V] [--gc N] [--classify CHAIN] [--filter EXPR] [--metric M]
                      [--sort S] [--size WxH] [--camera NAME] [--drill PATH] [--select PATHS]
                      [--scaled] [--all] [--depth D] [--diff-from A] -o OUT.png
       memcity render FILE --view timeline-trees --pins A,B,... [--shape sunburst|icicle|city]
                      [--unscaled] [same options] -o OUT.png
       memcity render FILE [same options] [--from A] [--to B] --frames K -o DIR

Draws a view of the heap offscreen with Vulkan (Mesa's lavapipe when there is no GPU) and
writes a PNG; with --frames, K pictures from GC A to GC B (DIR/frame_0000.png, ...), tweened
between the GCs. The same input gives the same picture every run on the same driver.

The groups come from a tree series over GCs A..B (default: the whole trace; see 'memcity
series --help'), so a building keeps its lot and the camera its place at every GC: the
picture at GC N and an animation over the same window show the city from the same point.

views:
  city       districts for the groups that hold groups, buildings for the rest: footprint by
             the group's peak over the window, height by its size now, colour by its growth
             since the window's first GC (blue shrinking, grey stable, orange growing,
             vermillion strongly growing); stable and shrinking buildings are translucent
  sunburst   the local view (the drill-down group and two levels below it) beside the global
             view (the whole tree, the drill-down branch highlighted)
  icicle     the same as rows of rectangles
  timeline   live bytes after each GC, reachable bytes where a reference snapshot was taken,
             GC pauses, and the suspicious windows ('memcity windows') as bands
  timeline-trees
             STAG20's timeline-based view: a small tree per pinned GC side by side, and the
             --gc's tree outlined, over the memory chart with the pins marked; scaled, so a
             growing group grows from tree to tree
  heapmap    GCspy's view: each of the collector's spaces as a band of tiles in address
             order coloured by --stream, and a history graph of one space (--space) before
             and after each GC of the window (docs/heapmap.md)

)",
         {
             {"--view", "V", "", "city (default), sunburst, icicle, timeline, timeline-trees or heapmap"},
             {"--gc", "N", "", "the GC to draw (default: the last of the window)"},
             {"--from", "A", "", ""},
             {"--to", "B", "", "the window of GCs the groups and the layout come from (default: all)"},
             {"--frames", "K", "", "draw K pictures evenly from A to B into the directory given by -o"},
             {"--classify", "C", "", "the classifier chain (default type,site; see 'memcity report --help')"},
             {"--filter", "EXPR", "", "classify only the objects for which EXPR is true"},
             {"--metric", "M", "", "bytes (default) or objects: what sizes show"},
             {"--sort", "S", "", "growth (default), start or end: the fixed order of each group's children"},
             {"--size", "WxH", "", "picture size in pixels (default 1280x720)"},
             {"--camera", "NAME", "", "city camera: overview (default), top, front or street"},
             {"--drill", "PATH", "",
              "sunburst / icicle: the group to drill down to, its labels separated by '/'"},
             {"--select", "PATHS", "", "draw these groups selected (paths separated by ';')"},
             {"--diff-from", "A", "",
              "the heap diff as a view (ICPE18): city, sunburst or icicle coloured by\nwhat dominates each "
              "group since GC A at --gc, born (vermillion), died (blue)\nor permanent (grey); the title bar "
              "gives the totals ('memcity diff' lists them)"},
             {"--scaled", "", "", "sunburst / icicle: the chart's extent follows the heap's size over time"},
             {"--pins", "A,B,...", "", "timeline-trees: the GCs to draw a tree for (within the window)"},
             {"--shape", "S", "",
              "timeline-trees: sunburst (default) or icicle trees, or city: small cities\non one layout, so "
              "a lot stands at the same place in each"},
             {"--unscaled", "", "", "timeline-trees: every tree fills its panel"},
             {"--stream", "S", "",
              "heapmap: what colours a tile: used (default), objects, age, selected\n(the --select groups' "
              "share) or dying (at the next GC)"},
             {"--tile", "BYTES", "", "heapmap: the bytes of a tile (default: the smallest that fits)"},
             {"--tile-px", "N", "", "heapmap: a tile's side in pixels (default 10)"},
             {"--space", "NAME", "", "heapmap: the space of the history graph (default: the largest)"},
             {"--all", "", "", "every group, no \"Other\""},
             {"--depth", "D", "", "levels below the root to draw (default 8)"},
             {"--samples", "N", "", "multisampling (default 4, lowered to what the device supports)"},
             {"--validate", "", "", "turn the Vulkan validation layer on (for debugging)"},
             {"--output", "F", "-o", "the PNG to write, or the directory for --frames"},
         },

         [](const Words& a, const Services&) { return runRender(a); }},
        {"synth",
         "write a synthetic trace with exactly known answers",
         R"(usage: memcity synth SCENARIO -o FILE [--scale N] [--seed S] [--refs N|off] [--sampled BYTES]
                    [--no-compress]
       memcity synth --list

Scenarios (docs/scenarios.md gives each one's expected answers):
  buggy-stack   a stack whose pop keeps references (ICPE18, 5.3)
  multi-cache   products held by two static maps: shared ownership (ManLang18, 5.1)
  growing-map   a cache whose key lacks equals/hashCode (STAG20, 7.2)
  churn         a burst of short-lived objects between calm phases
  gc-hotspot    a phase in which most objects survive
  steady        a server with bounded caches: no leak
  big-heap      tens of millions of objects: the benchmark workload

)",
         {
             {"--output", "FILE", "-o", "where to write the trace (required)"},
             {"--scale", "N", "", "multiply the program's work by N (default 1)"},
             {"--seed", "S", "", "vary incidental garbage (default 1); the answers do not change"},
             {"--refs", "N|off", "", "reference snapshot after every Nth GC (default 1), or none"},
             {"--sampled", "BYTES", "",
              "the same run as a sampled recording at this mean interval (e.g. 64k):\nonly the objects the "
              "JVM's heap sampler would pick, a census at every\nexplicit GC, and snapshots only with "
              "--refs"},
             {"--no-compress", "", "", "write chunks without zstd"},
             {"--list", "", "", "list the scenarios"},
         },

         [](const Words& a, const Services&) { return runSynth(a); }},
        {"import",
         "turn heap dumps (HPROF) into a trace, one GC per dump",
         R"(usage: memcity import DUMP.hprof... -o OUT.mct

Reads heap dumps (jcmd PID GC.heap_dump, -XX:+HeapDumpOnOutOfMemoryError, VisualVM; gzip-
compressed ones too) of one JVM, in the order given, and writes a trace with one full GC per
dump: its objects with the sizes the JVM counts, every reference and GC root, its threads.
A dump has no allocation sites and no object identity across dumps: between two dumps every
object reads as died and born again (docs/hprof.md). 'memcity FILE.hprof' opens one directly.

)",
         {
             {"--output", "FILE", "-o", "where to write the trace (required)"},
             {"--verbose", "", "-v", "list the classes whose size the objects' addresses corrected"},
         },
         [](const Words& a, const Services&) { return runImport(a); }},
        {"dump",
         "heap dumps of a running JVM, every few seconds, into a trace",
         R"(usage: memcity dump PID -o OUT.mct [--every SECONDS] [--count N] [--all] [--keep] [--live]

Takes a heap dump of the running JVM PID every SECONDS (as jcmd PID GC.heap_dump does: one
pause per dump, a full GC and the dump), imports each into OUT.mct as it arrives (one GC per
dump, as 'memcity import') and deletes it. Ends after N dumps, when the JVM exits, or at
Ctrl-C; the JVM goes on. Each line says the pause: the whole operation's time, an upper bound.

)",
         {
             {"--output", "FILE", "-o", "where to write the trace (required)"},
             {"--every", "SECONDS", "", "time between two dumps' starts (default 10)"},
             {"--count", "N", "", "stop after N dumps (default: until the JVM exits or Ctrl-C)"},
             {"--all", "", "", "dump unreachable objects too (no full GC before each dump)"},
             {"--keep", "", "", "keep the raw dumps, next to OUT (OUT-PID-K.hprof)"},
             {"--live", "", "", "watch the trace in a window as the dumps arrive"},
             {"--verbose", "", "-v", "list the classes whose size the objects' addresses corrected"},
         },
         [](const Words& a, const Services& s) { return runDump(a, s.live); }},
    };
    return commands;
}

const CommandHelp* findCommand(std::string_view name) {
    for (const CommandHelp& c : commandHelp())
        if (c.name == name) return &c;
    return nullptr;
}

namespace {

// "  -o, --output FILE", or "  --from A, --to B" for an option shown with the next.
std::string optionText(const std::vector<OptionSpec>& options, size_t i) {
    const OptionSpec& o = options[i];
    std::string text = o.short_name.empty() ? "" : std::string(o.short_name) + ", ";
    text += std::string(o.name) + (o.value.empty() ? "" : " " + std::string(o.value));
    if (o.help.empty() && i + 1 < options.size()) text += ", " + optionText(options, i + 1);
    return text;
}

}  // namespace

int printHelp(std::string_view name) {
    const CommandHelp* c = findCommand(name);
    if (!c) return 0;
    std::cout << c->usage << "options:\n";
    // The options' texts, and the help of each in one column after the longest.
    std::vector<std::pair<std::string, std::string_view>> rows;
    for (size_t i = 0; i < c->options.size(); ++i) {
        const std::string text = optionText(c->options, i);
        if (c->options[i].help.empty() && i + 1 < c->options.size()) {
            rows.emplace_back(text, c->options[i + 1].help);
            ++i;
        } else {
            rows.emplace_back(text, c->options[i].help);
        }
    }
    rows.emplace_back("-h, --help", "this help");
    size_t width = 0;
    for (const auto& [text, help] : rows)
        width = std::max(width, text.size());
    const std::string indent(2 + width + 3, ' ');
    for (const auto& [text, help] : rows) {
        std::cout << "  " << text << std::string(width + 3 - text.size(), ' ');
        for (size_t start = 0;;) {
            const size_t end = help.find('\n', start);
            std::cout << help.substr(start,
                                     end == std::string_view::npos ? std::string_view::npos : end - start)
                      << "\n";
            if (end == std::string_view::npos) break;
            std::cout << indent;
            start = end + 1;
        }
    }
    return 0;
}

}  // namespace memcity::cli
