// The explorer's logic without a window: loading in the background, errors that name the file
// and the value, and a heap dump imported into the cache. The features have their own files:
// test_session_selection.cpp, _series, _inspector, _compare, _heapmap.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "classify/churn.h"
#include "explore/session.h"
#include "explore/session_fixtures.h"
#include "hprof/import_cache.h"
#include "scene/camera.h"
#include "scene/city_state.h"
#include "synth/synth.h"
#include "unit/hprof_builder.h"
#include "unit/trace_builder.h"

namespace memcity::explore {
namespace {

TEST(Session, LoadsInTheBackgroundAndShowsTheLastGc) {
    const std::string path = scenario("growing-map");
    auto s = opened(path, "package,type");
    EXPECT_EQ(s->load().phase, LoadPhase::kReady);
    EXPECT_EQ(s->gcs().size(), s->history()->gcCount());
    EXPECT_GE(s->load().first_gc_seconds, 0.0);
    EXPECT_LE(s->load().first_gc_seconds, s->load().seconds);
    EXPECT_TRUE(s->seriesFinal());
    EXPECT_EQ(s->series()->gcCount(), s->history()->gcCount());
    // The cursor followed the GCs as they came: it stands at the last one.
    EXPECT_EQ(s->currentGc(), s->history()->gcCount() - 1);
    EXPECT_TRUE(s->settled());
}

// The records reach the window as appended pieces while loading, and end equal to the history's
// (whose snapshot figures are filled in after their GC).
TEST(Session, LoaderRecordsArriveInOrderAndEndAsTheHistorys) {
    TraceLoader loader(scenario("multi-cache"), {});
    std::vector<GcRecord> records;
    uint64_t revision = 0;
    size_t seen = 0;
    while (!loader.done()) {
        loader.syncGcs(&records, &revision);
        ASSERT_GE(records.size(), seen);
        seen = records.size();
        for (size_t i = 0; i < records.size(); ++i)
            ASSERT_EQ(records[i].index, i);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(loader.progress().phase, LoadPhase::kReady) << loader.progress().error;
    loader.syncGcs(&records, &revision);
    const std::vector<GcRecord>& want = loader.history().gcs();
    ASSERT_EQ(records.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(records[i].live_bytes, want[i].live_bytes) << i;
        EXPECT_EQ(records[i].has_snapshot, want[i].has_snapshot) << i;
        EXPECT_EQ(records[i].reachable_bytes, want[i].reachable_bytes) << i;
    }
    // Nothing new: nothing changes.
    const uint64_t before = revision;
    loader.syncGcs(&records, &revision);
    EXPECT_EQ(records.size(), want.size());
    EXPECT_EQ(revision, before);
}

TEST(Session, ErrorsNameTheFileAndTheValue) {
    Session s;
    s.open("/nonexistent/trace.mct");
    s.waitSettled();
    EXPECT_EQ(s.load().phase, LoadPhase::kFailed);
    EXPECT_NE(s.load().error.find("/nonexistent/trace.mct"), std::string::npos) << s.load().error;
    EXPECT_EQ(s.series(), nullptr);
    EXPECT_FALSE(s.goToGc(0).ok());

    auto g = opened(scenario("buggy-stack"), "type");
    Status st = g->goToGc(99);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().message.find("GC 99 is out of range"), std::string::npos) << st.error().message;
    Status sel = g->selectPath("java.util.Nope");
    ASSERT_FALSE(sel.ok());
    EXPECT_EQ(sel.error().message, "no group 'java.util.Nope' in the series by type");
}

// A heap dump opened in the session: imported into the cache while the session follows the
// trace the import writes, then opened from the cache; a bad dump's error names it, and nothing
// of its import stays behind.
TEST(Session, AHeapDumpIsImportedOnceIntoTheCacheAndShown) {
    namespace fs = std::filesystem;
    const std::string dir = testing::tempDir("session-dump");
    testing::ScopedEnv cache("XDG_CACHE_HOME", (dir + "/cache").c_str());
    auto writeDump = [&](const std::string& name, std::vector<uint8_t> bytes) {
        const std::string path = dir + "/" + name;
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        return path;
    };
    const std::string dump = writeDump("little.hprof", hprof::testing::littleHeap());
    auto s = opened(dump, "type");
    EXPECT_EQ(s->path(), dump);
    EXPECT_FALSE(s->importing());
    ASSERT_EQ(s->gcs().size(), 1u);
    EXPECT_EQ(s->gcs()[0].live_objects, 17u);  // (test_hprof_import.cpp's little heap)
    EXPECT_TRUE(s->gcs()[0].has_snapshot);
    auto place = hprof::cachedImportOf(dump);
    ASSERT_TRUE(place.ok()) << place.error().message;
    EXPECT_TRUE(place->ready);
    EXPECT_FALSE(fs::exists(place->partial));

    // Again: from the cache at once.
    s->open(dump);
    EXPECT_FALSE(s->importing());
    s->waitSettled();
    EXPECT_TRUE(s->loaded()) << s->load().error;
    EXPECT_EQ(s->gcs().size(), 1u);

    // Cut short: the reader's error, naming the dump; no partial trace left.
    std::vector<uint8_t> cut = hprof::testing::littleHeap();
    cut.resize(cut.size() - 40);
    const std::string bad = writeDump("cut.hprof", cut);
    s->open(bad);
    s->waitSettled();
    EXPECT_EQ(s->load().phase, LoadPhase::kFailed);
    EXPECT_EQ(s->load().error.rfind(bad + ": offset ", 0), 0u) << s->load().error;
    EXPECT_FALSE(s->importing());
    EXPECT_EQ(s->series(), nullptr);
    auto bad_place = hprof::cachedImportOf(bad);
    ASSERT_TRUE(bad_place.ok());
    EXPECT_FALSE(bad_place->ready);
    EXPECT_FALSE(fs::exists(bad_place->partial));

    // A session closed while it imports: the import stops, and leaves nothing half-written.
    const std::string other = writeDump("other.hprof", hprof::testing::littleHeap(1'700'000'001'000ull));
    auto closing = std::make_unique<Session>(SessionOptions{});
    closing->open(other);
    closing.reset();
    auto other_place = hprof::cachedImportOf(other);
    ASSERT_TRUE(other_place.ok());
    EXPECT_FALSE(fs::exists(other_place->partial));
    fs::remove_all(dir);
}

}  // namespace
}  // namespace memcity::explore
