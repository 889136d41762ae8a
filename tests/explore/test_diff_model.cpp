// The diff view's model without a session (explore/diff_model.h): the born / died / permanent
// figures of a tiny hand-made history, a request replacing the one before, reset, errors kept
// and reported, and idle() only when nothing is pending.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "classify/classifier.h"
#include "classify/series.h"
#include "explore/diff_model.h"
#include "unit/loaded_heap.h"
#include "unit/trace_builder.h"

namespace memcity::explore {
namespace {

using testing::TraceBuilder;

// A is 16 B, B 24 B.
// GC 0: A#0, A#1, B#2, B#3.
// GC 1: A#0 and B#2 died; A#4, B#5, B#6 born.
// GC 2: A#4 and B#5 died; A#7 born.
std::string diffTrace() {
    TraceBuilder b("diff-model");
    b.alloc(0, 1).alloc(1, 1).alloc(2, 2).alloc(3, 2);
    b.gc(0, 4);
    b.alloc(4, 1).alloc(5, 2).alloc(6, 2);
    b.gc(1, 7, {0, 2});
    b.alloc(7, 1);
    b.gc(2, 8, {4, 5});
    return b.finish();
}

// The history, a chain by type and the series it builds over all GCs.
struct Fixture {
    testing::LoadedHistory loaded{diffTrace()};
    std::shared_ptr<const ClassifierChain> chain = chainOf("type");
    std::shared_ptr<const TreeSeries> series;

    Fixture() {
        auto s = TreeSeries::build(*loaded.history, *chain);
        EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
        if (s) series = std::make_shared<const TreeSeries>(std::move(*s));
    }
    static std::shared_ptr<const ClassifierChain> chainOf(const std::string& spec) {
        auto c = parseChain(spec);
        EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
        return std::make_shared<const ClassifierChain>(std::move(*c));
    }
    const HeapHistory& history() const { return *loaded.history; }
    uint32_t node(const std::string& type) const { return series->find({type}); }
};

// Waits for the worker and adopts what it finished.
bool settle(DiffModel& m, const Fixture& f) {
    m.waitIdle();
    return m.update(f.series.get(), f.chain);
}

// objects, bytes of a cohort.
std::pair<uint64_t, uint64_t> figures(const SeriesCounts& c) {
    return {c.objects, c.bytes};
}

TEST(DiffModel, ARequestGivesTheBornDiedAndPermanentFigures) {
    Fixture f;
    ASSERT_NE(f.series, nullptr);
    DiffModel m({}, 1);
    m.request(f.history(), 0, 1, f.chain);
    ASSERT_TRUE(settle(m, f));
    ASSERT_NE(m.laid(), nullptr) << m.error();
    EXPECT_EQ(m.error(), "");
    EXPECT_TRUE(m.current(0, 1, f.chain));
    EXPECT_EQ(m.laid()->baseGc(), 0u);
    EXPECT_EQ(m.laid()->gc(), 1u);
    const scene::CohortCounts& a = m.laid()->at(f.node("A"));
    EXPECT_EQ(figures(a.born), std::make_pair(uint64_t{1}, uint64_t{16}));
    EXPECT_EQ(figures(a.died), std::make_pair(uint64_t{1}, uint64_t{16}));
    EXPECT_EQ(figures(a.permanent), std::make_pair(uint64_t{1}, uint64_t{16}));
    const scene::CohortCounts& b = m.laid()->at(f.node("B"));
    EXPECT_EQ(figures(b.born), std::make_pair(uint64_t{2}, uint64_t{48}));
    EXPECT_EQ(figures(b.died), std::make_pair(uint64_t{1}, uint64_t{24}));
    EXPECT_EQ(figures(b.permanent), std::make_pair(uint64_t{1}, uint64_t{24}));
    const scene::CohortCounts& root = m.laid()->at(TreeSeries::kRoot);
    EXPECT_EQ(figures(root.born), std::make_pair(uint64_t{3}, uint64_t{64}));
    EXPECT_EQ(figures(root.died), std::make_pair(uint64_t{2}, uint64_t{40}));
    EXPECT_EQ(figures(root.permanent), std::make_pair(uint64_t{2}, uint64_t{40}));

    // Over two GCs: A#4 and B#5, born and dead between them, are in no cohort.
    m.request(f.history(), 0, 2, f.chain);
    ASSERT_TRUE(settle(m, f));
    const scene::CohortCounts& all = m.laid()->at(TreeSeries::kRoot);
    EXPECT_EQ(figures(all.born), std::make_pair(uint64_t{2}, uint64_t{40}));  // A#7, B#6
    EXPECT_EQ(figures(all.died), std::make_pair(uint64_t{2}, uint64_t{40}));  // A#0, B#2
    EXPECT_EQ(figures(all.permanent), std::make_pair(uint64_t{2}, uint64_t{40}));

    // Laid onto a series of another chain (even of the same spec), it is not shown.
    m.lay(f.series.get(), Fixture::chainOf("type"));
    EXPECT_EQ(m.laid(), nullptr);
    EXPECT_FALSE(m.current(0, 2, f.chain));
    m.lay(f.series.get(), f.chain);
    EXPECT_TRUE(m.current(0, 2, f.chain));
    m.lay(nullptr, f.chain);
    EXPECT_EQ(m.laid(), nullptr);
}

TEST(DiffModel, ASecondRequestReplacesTheFirst) {
    Fixture f;
    ASSERT_NE(f.series, nullptr);
    DiffModel m({}, 1);
    m.request(f.history(), 0, 1, f.chain);
    m.request(f.history(), 1, 2, f.chain);  // before the first is adopted
    ASSERT_TRUE(settle(m, f));
    ASSERT_NE(m.laid(), nullptr) << m.error();
    EXPECT_TRUE(m.current(1, 2, f.chain));
    EXPECT_FALSE(m.current(0, 1, f.chain));
    const scene::CohortCounts& root = m.laid()->at(TreeSeries::kRoot);
    EXPECT_EQ(figures(root.born), std::make_pair(uint64_t{1}, uint64_t{16}));       // A#7
    EXPECT_EQ(figures(root.died), std::make_pair(uint64_t{2}, uint64_t{40}));       // A#4, B#5
    EXPECT_EQ(figures(root.permanent), std::make_pair(uint64_t{3}, uint64_t{64}));  // A#1, B#3, B#6
    EXPECT_TRUE(m.idle());
    // Nothing else comes: the first request's result was dropped.
    EXPECT_FALSE(settle(m, f));
    EXPECT_TRUE(m.current(1, 2, f.chain));
}

TEST(DiffModel, ResetDropsTheDiffAndWhatWasAskedFor) {
    Fixture f;
    ASSERT_NE(f.series, nullptr);
    DiffModel m({}, 1);
    m.request(f.history(), 0, 1, f.chain);
    ASSERT_TRUE(settle(m, f));
    ASSERT_NE(m.laid(), nullptr);
    m.request(f.history(), 0, 2, f.chain);  // on its way when reset comes
    m.reset();
    EXPECT_EQ(m.laid(), nullptr);
    EXPECT_FALSE(m.current(0, 1, f.chain));
    EXPECT_EQ(m.error(), "");
    EXPECT_TRUE(m.idle());
    EXPECT_FALSE(m.update(f.series.get(), f.chain));  // the job's result went with it
    EXPECT_EQ(m.laid(), nullptr);
    // Asking again for what was on its way computes it again.
    m.request(f.history(), 0, 2, f.chain);
    EXPECT_FALSE(m.idle());
    ASSERT_TRUE(settle(m, f));
    EXPECT_TRUE(m.current(0, 2, f.chain));
}

TEST(DiffModel, AnErrorIsKeptAndReported) {
    Fixture f;
    ASSERT_NE(f.series, nullptr);
    DiffModel m({}, 1);
    // A diff finished but not adopted when the cursor moves before the base: it is dropped.
    m.request(f.history(), 0, 1, f.chain);
    m.waitIdle();
    m.request(f.history(), 2, 1, f.chain);
    EXPECT_FALSE(m.update(f.series.get(), f.chain));
    EXPECT_EQ(m.laid(), nullptr);
    m.request(f.history(), 0, 1, f.chain);
    ASSERT_TRUE(settle(m, f));

    // The cursor before the base: nothing is computed, the shown diff stays but is not current.
    m.request(f.history(), 2, 1, f.chain);
    EXPECT_EQ(m.error(), "no diff: the cursor (GC 1) is before the base GC 2");
    EXPECT_TRUE(m.idle());
    EXPECT_FALSE(m.update(f.series.get(), f.chain));
    EXPECT_EQ(m.error(), "no diff: the cursor (GC 1) is before the base GC 2");
    EXPECT_FALSE(m.current(2, 1, f.chain));
    EXPECT_TRUE(m.current(0, 1, f.chain));

    // A diff that fails in the background: its message, kept across updates.
    m.request(f.history(), 0, 9, f.chain);
    EXPECT_EQ(m.error(), "");  // on its way
    ASSERT_TRUE(settle(m, f));
    EXPECT_EQ(m.error(), "the diff failed: " + f.history().gcRangeError(9));
    EXPECT_FALSE(settle(m, f));
    EXPECT_EQ(m.error(), "the diff failed: " + f.history().gcRangeError(9));
    EXPECT_FALSE(m.current(0, 9, f.chain));

    // The next diff that succeeds clears it.
    m.request(f.history(), 1, 2, f.chain);
    ASSERT_TRUE(settle(m, f));
    EXPECT_EQ(m.error(), "");
    EXPECT_TRUE(m.current(1, 2, f.chain));
}

TEST(DiffModel, IdleOnlyWhenNothingIsPending) {
    Fixture f;
    ASSERT_NE(f.series, nullptr);
    DiffModel m({}, 1);
    EXPECT_TRUE(m.idle());
    m.request(f.history(), 0, 1, f.chain);
    EXPECT_FALSE(m.idle());  // running, or finished and not yet adopted
    m.waitIdle();
    EXPECT_FALSE(m.idle());  // finished, waiting for update()
    ASSERT_TRUE(m.update(f.series.get(), f.chain));
    EXPECT_TRUE(m.idle());
    // What was last asked for is not asked again.
    m.request(f.history(), 0, 1, f.chain);
    EXPECT_TRUE(m.idle());
}

}  // namespace
}  // namespace memcity::explore
