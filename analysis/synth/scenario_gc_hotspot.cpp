// gc-hotspot (VMIL19 §3.3): a search service that normally produces only short-lived
// garbage, until a re-indexing phase in which every request adds index entries that survive.
// Young collections then copy most of what they find and their pauses grow; when re-indexing
// ends the index is dropped and pauses return to normal.
//
//   normal-1: N = 2,000 x scale queries, 30 us of work, ~0.6 KiB of garbage each
//   hotspot:  H = 2,000 x scale re-indexing requests, 5 us of work, 4 IndexEntry objects
//             (a String term and a long[] of postings each) kept in SearchIndex.index
//   normal-2: N queries; the index was dropped at the end of the hotspot
#include "synth/program.h"

namespace memcity::synth {

Status runGcHotspot(TraceWriter& out, const SynthOptions& options) {
    const uint32_t normal = 2'000 * options.scale, hotspot = 2'000 * options.scale;
    Program p(out, options, "gc-hotspot", 256u * 1024);
    SimHeap& h = p.heap;
    Jdk& jdk = p.jdk;
    using K = FieldKind;

    const uint32_t main = h.startThread("main");
    const uint32_t worker = h.startThread("search-worker-1");
    const std::string pkg = "org.example.search.";
    const uint32_t entry = h.defineClass(pkg + "IndexEntry", {{"term", "java.lang.String", K::kRef},
                                                              {"postings", "long[]", K::kRef},
                                                              {"weight", "float", K::kFloat}});
    const uint32_t index_class = h.defineClass(pkg + "SearchIndex", {});
    const uint32_t m_main =
        h.defineMethod(pkg + "SearchServer", "main", "([Ljava/lang/String;)V", "SearchServer.java");
    const uint32_t m_query = h.defineMethod(pkg + "SearchServer", "query",
                                            "(Ljava/lang/String;)Ljava/util/List;", "SearchServer.java");
    const uint32_t m_reindex = h.defineMethod(pkg + "SearchIndex", "reindex",
                                              "(Lorg/example/search/Document;)V", "SearchIndex.java");
    const uint32_t s_term = h.refSlot(entry, "term"), s_postings = h.refSlot(entry, "postings");

    h.setThread(main);
    const uint32_t index_static = h.defineStatic(index_class, "index", "java.util.HashMap");

    auto query = [&]() {
        h.setThread(worker);
        Ref q = jdk.newString({{m_query, 44}}, p.rng.range(10, 40));
        h.setLocal(worker, m_query, 1, 0, q);
        h.allocArray(jdk.byte_array, h.site({{m_query, 47}}), p.rng.range(200, 600));
        SimList hits = jdk.newArrayList({{m_query, 49}});
        h.setLocal(worker, m_query, 2, 0, hits.object);
        for (uint32_t k = 0, n = p.rng.range(0, 3); k < n; ++k)
            jdk.add(hits, jdk.newInteger({{m_query, 50}}), {{m_query, 50}});
        h.work(30'000);
        h.clearLocals(worker);
        h.safepoint();
    };

    p.beginPhase("normal-1");
    for (uint32_t i = 0; i < normal; ++i)
        query();
    p.endPhase();

    p.beginPhase("hotspot");
    h.setThread(main);
    SimMap index = jdk.newHashMap({{m_reindex, 20}, {m_main, 61}});
    h.setStatic(index_static, index.object);
    uint64_t entries = 0;
    for (uint32_t i = 0; i < hotspot; ++i) {
        h.setThread(worker);
        for (uint32_t k = 0; k < 4; ++k) {
            Ref e = h.alloc(entry, h.site({{m_reindex, 31}, {m_main, 61}}));
            h.setLocal(worker, m_reindex, 1, 0, e);
            h.set(e, s_term, jdk.newString({{m_reindex, 32}, {m_main, 61}}, p.rng.range(5, 15)));
            h.set(e, s_postings,
                  h.allocArray(jdk.long_array, h.site({{m_reindex, 33}, {m_main, 61}}), p.rng.range(8, 32)));
            jdk.put(index, entries++, h.get(e, s_term), e, {{m_reindex, 35}, {m_main, 61}});
        }
        h.work(5'000);
        h.clearLocals(worker);
        h.safepoint();
    }
    h.setStatic(index_static, kNull);  // re-indexing done: the index is swapped out and dropped
    p.endPhase();

    p.beginPhase("normal-2");
    for (uint32_t i = 0; i < normal; ++i)
        query();
    h.setThread(main);
    h.gc();
    p.endPhase();

    p.expect("index_entries", entries);
    p.finish();
    return {};
}

}  // namespace memcity::synth
