// The group report behind `memcity inspect` and the explorer's inspector: hand-made heaps with
// exact answers for every part (sizes, roots, paths, retained types, single retainers), an empty
// group, unreached objects, cancellation, and the multi-cache scenario (docs/scenarios.md).
#include <gtest/gtest.h>

#include "classify/tree.h"
#include "graph/group_report.h"
#include "heap/heap_history.h"
#include "synth/synth.h"
#include "unit/loaded_heap.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::TraceBuilder;
using E = std::vector<Edge>;
using Loaded = testing::LoadedHeap;

GroupReport report(const Loaded& l, const Bitset& group, const GroupReportOptions& options = {}) {
    auto r = buildGroupReport(*l.graph, group, options);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
    return r.ok() ? std::move(*r) : GroupReport{};
}

const std::string kIdField = "static field A.next", kNameField = "static field B.weak",
                  kLocal = "stack local main Main.run";

// Objects 0..10 (A: 16 B, Object[4]: 32 B, Object[2]: 24 B, int[10]: 56 B, int[2]: 24 B,
// int[4]: 32 B, the Class: 48 B; 296 B in all), references at GC 0:
//
//   static A.next -> 0 (A) -> 2 (Object[4]) -> 4 (int[10])      the group: 2, 3 and 8
//                    0 -> 7 (int[2])                               2 -> 5 and 3 -> 5 (A)
//   static B.weak,                                                 5 -> 6 (A) -> 10 (Class, 48 B)
//   stack local main Main.run -> 1 (A) -> 2, 1 -> 3 (Object[2])   3 -> 7
//   stack local main Main.run -> 3                                 8 (A) -> 9 (int[4]): no root
//                                                                  reaches them
std::string handMade() {
    TraceBuilder b("group-report");
    b.alloc(0).alloc(1);
    b.allocArray(2, 4, 4).allocArray(3, 4, 2).allocArray(4, 3, 10);
    b.alloc(5).alloc(6);
    b.allocArray(7, 3, 2);
    b.alloc(8);
    b.allocArray(9, 3, 4);
    b.allocSized(10, 5, 48);
    b.gc(0, 11);
    b.snapshot(0,
               {{0, E{TraceBuilder::strong(2), TraceBuilder::strong(7)}},
                {1, E{TraceBuilder::strong(2), TraceBuilder::strong(3)}},
                {2, E{TraceBuilder::strong(4), TraceBuilder::strong(5)}},
                {3, E{TraceBuilder::strong(5), TraceBuilder::strong(7)}},
                {5, E{TraceBuilder::strong(6)}},
                {6, E{TraceBuilder::strong(10)}},
                {8, E{TraceBuilder::strong(9)}}},
               {TraceBuilder::staticRoot(0), Root::make(8, 1, {2, 2}), Root::make(4, 1, {1, 1, 0, 0}),
                Root::make(4, 3, {1, 1, 0, 0})});
    return b.finish();
}

TEST(GroupReport, SizesRootsTypesAndSingleRetainersOfAHandMadeGroup) {
    Loaded l(handMade());
    const GroupReport r = report(l, l.set({2, 3, 8}));
    EXPECT_EQ(r.heap, (Sizes{11, 296}));
    EXPECT_EQ(r.closure.shallow, (Sizes{3, 32 + 24 + 16}));
    EXPECT_EQ(r.closure.unreached, (Sizes{1, 16}));  // 8
    // Everything below the group; 7 is also kept by 0, so only the deep size has it.
    EXPECT_EQ(l.ids(r.deep_set), (std::vector<uint64_t>{2, 3, 4, 5, 6, 7, 8, 9, 10}));
    EXPECT_EQ(r.closure.deep, (Sizes{9, 264}));
    EXPECT_EQ(l.ids(r.retained_set), (std::vector<uint64_t>{2, 3, 4, 5, 6, 8, 9, 10}));
    EXPECT_EQ(r.closure.retained, (Sizes{8, 240}));
    // The report's closure is closureOf's.
    const GroupClosure c = closureOf(*l.graph, l.set({2, 3, 8}));
    EXPECT_EQ(r.closure.shallow, c.shallow);
    EXPECT_EQ(r.closure.deep, c.deep);
    EXPECT_EQ(r.closure.retained, c.retained);
    EXPECT_EQ(r.closure.unreached, c.unreached);

    // Only 3 is rooted itself. 2 is one reference from three roots (A.next through 0, B.weak and
    // the stack local through 1); 3 is closest to its own root; 8 to none.
    EXPECT_EQ(r.direct_roots, (std::vector<CountedName>{{kLocal, 1, 24}}));
    // A.next and B.weak tie on bytes and objects: by name.
    EXPECT_EQ(r.closest_roots,
              (std::vector<CountedName>{{kLocal, 2, 56}, {kIdField, 1, 32}, {kNameField, 1, 32}}));

    // Every root reaching the group: 2's ancestors 0 (A.next) and 1 (B.weak, the stack local),
    // and 3 (the stack local) itself.
    EXPECT_EQ(l.ids(r.reaching_set), (std::vector<uint64_t>{0, 1, 3}));
    EXPECT_EQ(r.reaching_roots,
              (std::vector<CountedName>{{kLocal, 2, 16 + 24}, {kIdField, 1, 16}, {kNameField, 1, 16}}));
    // Not only the closest: 6 is closest to no root itself, every root reaches it through 5.
    const GroupReport six = report(l, l.set({6}));
    EXPECT_EQ(l.ids(six.reaching_set), (std::vector<uint64_t>{0, 1, 3}));

    // 2 walks to 0 (the first root object that reaches it); 3 is a root object.
    EXPECT_EQ(r.paths.reached_objects, 2u);
    EXPECT_EQ(r.paths.unreached_objects, 1u);
    EXPECT_EQ(r.paths.other_paths, 0u);
    ASSERT_EQ(r.paths.paths.size(), 2u);
    EXPECT_EQ(describePath(*l.graph, r.paths.paths[0]), kIdField + " → A → Object[]");
    EXPECT_EQ(r.paths.paths[0].objects, 1u);
    EXPECT_EQ(r.paths.paths[0].shortest, 1u);
    EXPECT_EQ(describePath(*l.graph, r.paths.paths[1]), kLocal + " → Object[]");
    EXPECT_EQ(r.paths.paths[1].shortest, 0u);

    // int[] 4, 9 (88 B); Object[] 2, 3 (56 B); A 5, 6, 8 and the Class 10 both 48 B: more
    // objects first.
    EXPECT_EQ(
        r.retained_by_type,
        (std::vector<CountedName>{{"int[]", 2, 88}, {"Object[]", 2, 56}, {"A", 3, 48}, {"Class", 1, 48}}));

    // 2 alone retains itself and 4 (5 is also 3's); 3 only itself; 8 is unreached: not listed.
    ASSERT_TRUE(r.dominators_computed);
    const uint32_t objs = l.type("Object[]");
    EXPECT_EQ(r.largest_objects,
              (std::vector<SingleRetainer>{{l.pos(2), 2, objs, {2, 88}}, {l.pos(3), 3, objs, {1, 24}}}));
}

TEST(GroupReport, ListsAreCutToTheOptionsMaxima) {
    Loaded l(handMade());
    GroupReportOptions options;
    options.max_roots = 1;
    options.max_types = 2;
    options.max_singles = 1;
    options.max_paths = 1;
    const GroupReport r = report(l, l.set({2, 3, 8}), options);
    EXPECT_EQ(r.closest_roots, (std::vector<CountedName>{{kLocal, 2, 56}}));
    EXPECT_EQ(r.retained_by_type, (std::vector<CountedName>{{"int[]", 2, 88}, {"Object[]", 2, 56}}));
    ASSERT_EQ(r.largest_objects.size(), 1u);
    EXPECT_EQ(r.largest_objects[0].id, 2u);
    ASSERT_EQ(r.paths.paths.size(), 1u);
    EXPECT_EQ(r.paths.other_paths, 1u);
    EXPECT_EQ(r.paths.other_objects, 1u);

    options = {};
    options.dominators = false;
    const GroupReport no_dom = report(l, l.set({2, 3, 8}), options);
    EXPECT_FALSE(no_dom.dominators_computed);
    EXPECT_TRUE(no_dom.largest_objects.empty());
    EXPECT_EQ(no_dom.closure.retained, (Sizes{8, 240}));
}

TEST(GroupReport, AGroupNoRootReaches) {
    Loaded l(handMade());
    const GroupReport r = report(l, l.set({8}));
    EXPECT_EQ(r.closure.shallow, (Sizes{1, 16}));
    EXPECT_EQ(r.closure.unreached, (Sizes{1, 16}));
    EXPECT_EQ(r.closure.deep, (Sizes{2, 48}));
    EXPECT_EQ(r.closure.retained, (Sizes{2, 48}));  // garbage keeps nothing alive
    EXPECT_TRUE(r.direct_roots.empty());
    EXPECT_TRUE(r.closest_roots.empty());
    EXPECT_TRUE(r.reaching_roots.empty());
    EXPECT_EQ(r.reaching_set.count(), 0u);
    EXPECT_TRUE(r.paths.paths.empty());
    EXPECT_EQ(r.paths.reached_objects, 0u);
    EXPECT_EQ(r.paths.unreached_objects, 1u);
    EXPECT_EQ(r.retained_by_type, (std::vector<CountedName>{{"int[]", 1, 32}, {"A", 1, 16}}));
    EXPECT_TRUE(r.dominators_computed);
    EXPECT_TRUE(r.largest_objects.empty());
}

TEST(GroupReport, AnEmptyGroup) {
    Loaded l(handMade());
    const GroupReport r = report(l, Bitset(l.heap.objectCount()));
    EXPECT_EQ(r.heap, (Sizes{11, 296}));
    EXPECT_EQ(r.closure.shallow, Sizes{});
    EXPECT_EQ(r.closure.deep, Sizes{});
    EXPECT_EQ(r.closure.retained, Sizes{});
    EXPECT_EQ(r.closure.unreached, Sizes{});
    EXPECT_TRUE(r.deep_set.empty());
    EXPECT_EQ(r.deep_set.size(), l.heap.objectCount());
    EXPECT_TRUE(r.retained_set.empty());
    EXPECT_TRUE(r.direct_roots.empty());
    EXPECT_TRUE(r.closest_roots.empty());
    EXPECT_TRUE(r.paths.paths.empty());
    EXPECT_EQ(r.paths.reached_objects + r.paths.unreached_objects, 0u);
    EXPECT_TRUE(r.retained_by_type.empty());
    EXPECT_TRUE(r.largest_objects.empty());
}

// Root paths merge by root identity and types, a run of one type counting once; ties between
// single retainers go to the lower position.
//
//   static A.next -> 0 (Object[4]) -> 1, 2, 3 (A)     1 -> 6, 2 -> 7 (int[2])
//                                     3 -> 4 -> 5 (A)  5 -> 8 (int[2])
//   stack local main Main.run -> 9 (int[2])
std::string lists() {
    TraceBuilder b("group-report-lists");
    b.allocArray(0, 4, 4);
    for (uint64_t id = 1; id <= 5; ++id)
        b.alloc(id);
    for (uint64_t id = 6; id <= 9; ++id)
        b.allocArray(id, 3, 2);
    b.gc(0, 10);
    b.snapshot(0,
               {{0, E{TraceBuilder::strong(1), TraceBuilder::strong(2), TraceBuilder::strong(3)}},
                {1, E{TraceBuilder::strong(6)}},
                {2, E{TraceBuilder::strong(7)}},
                {3, E{TraceBuilder::strong(4)}},
                {4, E{TraceBuilder::strong(5)}},
                {5, E{TraceBuilder::strong(8)}}},
               {TraceBuilder::staticRoot(0), Root::make(4, 9, {1, 1, 0, 0})});
    return b.finish();
}

TEST(GroupReport, PathsAggregateByTypeAndTiesGoToTheLowerPosition) {
    Loaded l(lists());
    const Bitset ints = l.set({6, 7, 8, 9});
    const GroupReport r = report(l, ints);
    EXPECT_EQ(r.closure.shallow, (Sizes{4, 96}));
    EXPECT_EQ(r.closure.retained, (Sizes{4, 96}));
    EXPECT_EQ(r.direct_roots, (std::vector<CountedName>{{kLocal, 1, 24}}));
    EXPECT_EQ(r.closest_roots, (std::vector<CountedName>{{kIdField, 3, 72}, {kLocal, 1, 24}}));

    EXPECT_EQ(r.paths.reached_objects, 4u);
    EXPECT_EQ(r.paths.unreached_objects, 0u);
    ASSERT_EQ(r.paths.paths.size(), 3u);
    EXPECT_EQ(describePath(*l.graph, r.paths.paths[0]), kIdField + " → Object[] → A → int[]");
    EXPECT_EQ(r.paths.paths[0].objects, 2u);  // 6, 7
    EXPECT_EQ(r.paths.paths[0].shortest, 2u);
    EXPECT_EQ(describePath(*l.graph, r.paths.paths[1]), kIdField + " → Object[] → A (×n) → int[]");
    EXPECT_EQ(r.paths.paths[1].objects, 1u);  // 8, through 3, 4, 5
    EXPECT_EQ(r.paths.paths[1].shortest, 4u);
    EXPECT_EQ(describePath(*l.graph, r.paths.paths[2]), kLocal + " → int[]");
    EXPECT_EQ(r.paths.paths[2].shortest, 0u);
    EXPECT_EQ(r.retained_by_type, (std::vector<CountedName>{{"int[]", 4, 96}}));

    // Every int[] retains its own 24 bytes: by position.
    const uint32_t int_type = l.type("int[]");
    std::vector<SingleRetainer> expected;
    for (uint64_t id : std::initializer_list<uint64_t>{6, 7, 8, 9})
        expected.push_back({l.pos(id), id, int_type, {1, 24}});
    EXPECT_EQ(r.largest_objects, expected);
    GroupReportOptions two;
    two.max_singles = 2;
    EXPECT_EQ(report(l, ints, two).largest_objects,
              (std::vector<SingleRetainer>(expected.begin(), expected.begin() + 2)));

    // The list's head retains the list and the int[] at its end.
    const GroupReport head = report(l, l.set({3}));
    EXPECT_EQ(head.closure.retained, (Sizes{4, 3 * 16 + 24}));
    ASSERT_EQ(head.largest_objects.size(), 1u);
    EXPECT_EQ(head.largest_objects[0].retained, (Sizes{4, 72}));
}

TEST(GroupReport, ADominatorTreeGivenIsUsedAndChecked) {
    Loaded l(handMade());
    auto dom = computeDominators(l.heap.view(), l.graph->snapshot());
    ASSERT_TRUE(dom.ok()) << dom.error().message;
    GroupReportOptions options;
    options.dominator_tree = &*dom;
    options.threads = 2;
    const GroupReport given = report(l, l.set({2, 3, 8}), options);
    EXPECT_EQ(given.largest_objects, report(l, l.set({2, 3, 8})).largest_objects);

    Loaded other(lists());
    auto other_dom = computeDominators(other.heap.view(), other.graph->snapshot());
    ASSERT_TRUE(other_dom.ok());
    options.dominator_tree = &*other_dom;
    auto mismatch = buildGroupReport(*l.graph, l.set({2}), options);
    ASSERT_FALSE(mismatch.ok());
    EXPECT_EQ(mismatch.error().message, "a dominator tree of 10 positions for a heap of 11");

    auto wrong_size = buildGroupReport(*l.graph, Bitset(5));
    ASSERT_FALSE(wrong_size.ok());
    EXPECT_EQ(wrong_size.error().message, "a group of 5 positions for a heap of 11");
}

// The progress is told once before each of the six stages; a stop at any of them abandons the report.
TEST(GroupReport, CancelledBetweenStages) {
    Loaded l(handMade());
    GroupReportOptions options;
    int asked = 0;
    options.progress = Progress([&](const ProgressReport& p) {
        EXPECT_EQ(p.position, static_cast<uint64_t>(++asked));
        EXPECT_EQ(p.total, options.dominators ? 6u : 5u);
        return true;
    });
    ASSERT_TRUE(buildGroupReport(*l.graph, l.set({2, 3, 8}), options).ok());
    EXPECT_EQ(asked, 6);
    options.dominators = false;
    asked = 0;
    ASSERT_TRUE(buildGroupReport(*l.graph, l.set({2, 3, 8}), options).ok());
    EXPECT_EQ(asked, 5);

    options.dominators = true;
    for (int stage = 1; stage <= 6; ++stage) {
        asked = 0;
        options.progress = Progress([&](const ProgressReport&) { return ++asked != stage; });
        auto r = buildGroupReport(*l.graph, l.set({2, 3, 8}), options);
        ASSERT_FALSE(r.ok()) << stage;
        EXPECT_EQ(r.error().message, kGroupReportCancelled) << stage;
        EXPECT_EQ(asked, stage);
    }
}

// ManLang18 §5.1 at scale 1 (docs/scenarios.md): each cache's map alone retains little of what
// the two retain together; the dominator tree sees each map's own part only.
TEST(GroupReport, MultiCacheSharedOwnership) {
    const std::string path = testing::tempPath("group-report-multi-cache");
    ASSERT_TRUE(synth::synthesize("multi-cache", path, {}).ok());
    Loaded l(path);
    const HeapView view = l.view();
    auto chain = parseChain("type,site");
    ASSERT_TRUE(chain.ok());
    auto tree = ClassificationTree::build(view, *chain);
    const uint32_t id_map =
        tree.find({"java.util.HashMap", "jku.anttracks.example.data.IdCache.<clinit>(IdCache.java:9)"});
    const uint32_t name_map =
        tree.find({"java.util.HashMap", "jku.anttracks.example.data.NameCache.<clinit>(NameCache.java:9)"});
    ASSERT_NE(id_map, kNoNode);
    ASSERT_NE(name_map, kNoNode);
    const std::vector<Bitset> sets = tree.members(view, {id_map, name_map});
    Bitset both = sets[0];
    both |= sets[1];
    const std::string id_field = "static field jku.anttracks.example.data.IdCache.idCache",
                      name_field = "static field jku.anttracks.example.data.NameCache.nameCache";

    // The id map: map (48 B), table (16 + 4 x 32,768 B), 20,000 nodes (32 B) and Long keys (24 B).
    const GroupReport id = report(l, sets[0]);
    EXPECT_EQ(id.closure.shallow, (Sizes{1, 48}));
    EXPECT_EQ(id.closure.retained, (Sizes{40'002, 1'251'136}));
    EXPECT_EQ(id.direct_roots, (std::vector<CountedName>{{id_field, 1, 48}}));
    EXPECT_EQ(id.closest_roots, id.direct_roots);
    ASSERT_EQ(id.paths.paths.size(), 1u);
    EXPECT_EQ(describePath(*l.graph, id.paths.paths[0]), id_field + " → java.util.HashMap");
    EXPECT_EQ(id.retained_by_type, (std::vector<CountedName>{{"java.util.HashMap$Node", 20'000, 640'000},
                                                             {"java.lang.Long", 20'000, 480'000},
                                                             {"java.util.HashMap$Node[]", 1, 131'088},
                                                             {"java.util.HashMap", 1, 48}}));
    ASSERT_EQ(id.largest_objects.size(), 1u);
    EXPECT_EQ(id.largest_objects[0].retained, id.closure.retained);

    EXPECT_EQ(report(l, sets[1]).closure.retained.bytes, 771'136u);

    // Together: 160,004 objects; the two maps tie on their own sizes, so the roots go by name.
    const GroupReport two = report(l, both);
    EXPECT_EQ(two.closure.retained, (Sizes{160'004, 5'222'272}));
    EXPECT_EQ(two.direct_roots, (std::vector<CountedName>{{id_field, 1, 48}, {name_field, 1, 48}}));
    ASSERT_EQ(two.largest_objects.size(), 2u);
    EXPECT_EQ(two.largest_objects[0].retained.bytes, 1'251'136u);
    EXPECT_EQ(two.largest_objects[1].retained.bytes, 771'136u);
    EXPECT_EQ(two.heap, (Sizes{view.liveObjects(), view.liveBytes()}));
}

}  // namespace
}  // namespace memcity
