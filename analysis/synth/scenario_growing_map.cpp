// growing-map (STAG20 §7.2, "easyTravel"): JourneyService.findLocations() caches its
// results in a ConcurrentHashMap keyed by QueryKey, a class without equals() and hashCode(), so
// every request misses and adds an entry that is never found again.
//
//   warm-up: main builds a startup index of W journeys (W = 3,000 x scale), then drops it
//   serving: R = 4,000 x scale requests on four HTTP worker threads; request i
//       - parses its request: a request line, a parameter HashMap, a char[] buffer (garbage)
//       - findLocations(query): new QueryKey(text); an ArrayList of k = 1 + i % 4 Locations,
//         each with a name String and a Date; locationCache.put(key, list)   (retained)
//       - every third request books: a Booking in a session map capped at 50 (steady)
//   System.gc() at the end.
#include "synth/program.h"

namespace memcity::synth {

Status runGrowingMap(TraceWriter& out, const SynthOptions& options) {
    const uint32_t warmup = 3'000 * options.scale;
    const uint32_t requests = 4'000 * options.scale;
    Program p(out, options, "growing-map", 256u * 1024);
    SimHeap& h = p.heap;
    Jdk& jdk = p.jdk;
    using K = FieldKind;

    const uint32_t main = h.startThread("main");
    uint32_t workers[4];
    for (uint32_t w = 0; w < 4; ++w)
        workers[w] = h.startThread("http-nio-8080-exec-" + std::to_string(w + 1), true);
    const std::string biz = "com.dynatrace.easytravel.business.";
    const std::string jpa = "com.dynatrace.easytravel.jpa.business.";
    const uint32_t location = h.defineClass(jpa + "Location", {{"name", "java.lang.String", K::kRef},
                                                               {"latitude", "double", K::kDouble},
                                                               {"longitude", "double", K::kDouble},
                                                               {"validUntil", "java.util.Date", K::kRef}});
    const uint32_t journey = h.defineClass(jpa + "Journey", {{"name", "java.lang.String", K::kRef},
                                                             {"destination", jpa + "Location", K::kRef},
                                                             {"start", "java.util.Date", K::kRef},
                                                             {"price", "double", K::kDouble}});
    const uint32_t booking = h.defineClass(jpa + "Booking", {{"id", "java.lang.String", K::kRef},
                                                             {"journey", jpa + "Journey", K::kRef},
                                                             {"bookingDate", "java.util.Date", K::kRef}});
    const uint32_t query_key =
        h.defineClass(biz + "JourneyService$QueryKey",
                      {{"text", "java.lang.String", K::kRef}, {"created", "long", K::kLong}});
    const uint32_t service = h.defineClass(
        biz + "JourneyService", {{"locationCache", "java.util.concurrent.ConcurrentHashMap", K::kRef},
                                 {"catalog", "java.util.ArrayList", K::kRef}});
    const uint32_t sessions_class = h.defineClass(biz + "SessionStore", {});
    const uint32_t m_main = h.defineMethod("com.dynatrace.easytravel.Launcher", "main",
                                           "([Ljava/lang/String;)V", "Launcher.java");
    const uint32_t m_index =
        h.defineMethod(biz + "StartupIndex", "build", "()Ljava/util/List;", "StartupIndex.java");
    const uint32_t m_catalog = h.defineMethod(biz + "JourneyService", "<init>", "()V", "JourneyService.java");
    const uint32_t m_service =
        h.defineMethod("org.apache.coyote.http11.Http11Processor", "service",
                       "(Lorg/apache/tomcat/util/net/SocketWrapperBase;)V", "Http11Processor.java");
    const uint32_t m_parse =
        h.defineMethod("org.apache.coyote.Request", "parseParameters", "()V", "Request.java");
    const uint32_t m_find = h.defineMethod(biz + "JourneyService", "findLocations",
                                           "(Ljava/lang/String;)Ljava/util/List;", "JourneyService.java");
    const uint32_t m_search = h.defineMethod(biz + "LocationSearch", "search",
                                             "(Ljava/lang/String;)Ljava/util/List;", "LocationSearch.java");
    const uint32_t m_book =
        h.defineMethod(biz + "BookingService", "book", "(Ljava/lang/String;)V", "BookingService.java");
    const uint32_t m_clinit = h.defineMethod(biz + "SessionStore", "<clinit>", "()V", "SessionStore.java");
    const uint32_t s_loc_name = h.refSlot(location, "name"), s_loc_date = h.refSlot(location, "validUntil");
    const uint32_t s_j_name = h.refSlot(journey, "name"), s_j_dest = h.refSlot(journey, "destination"),
                   s_j_start = h.refSlot(journey, "start");
    const uint32_t s_b_id = h.refSlot(booking, "id"), s_b_journey = h.refSlot(booking, "journey"),
                   s_b_date = h.refSlot(booking, "bookingDate");
    const uint32_t s_key_text = h.refSlot(query_key, "text");

    auto newLocation = [&](const Caller& at, uint32_t name_length) {
        Ref loc = h.alloc(location, h.site(std::span<const FrameSpec>(at)));
        h.set(loc, s_loc_name, jdk.newString(at, name_length));
        h.set(loc, s_loc_date, jdk.newDate(at));
        return loc;
    };
    auto newJourney = [&](const Caller& at) {
        Ref j = h.alloc(journey, h.site(std::span<const FrameSpec>(at)));
        h.set(j, s_j_name, jdk.newString(at, p.rng.range(10, 30)));
        h.set(j, s_j_dest, newLocation(at, p.rng.range(6, 14)));
        h.set(j, s_j_start, jdk.newDate(at));
        return j;
    };

    // The service and its catalogue of 200 journeys live for the whole run.
    h.setThread(main);
    Ref svc = h.alloc(service, h.site({{m_main, 40}}));
    h.defineStatic(service, "INSTANCE", biz + "JourneyService", svc);
    SimMap cache = jdk.newConcurrentHashMap({{m_catalog, 51}, {m_main, 40}});
    h.set(svc, 0, cache.object);
    SimList catalog = jdk.newArrayList({{m_catalog, 52}, {m_main, 40}});
    h.set(svc, 1, catalog.object);
    for (uint32_t i = 0; i < 200; ++i) {
        Ref j = newJourney({{m_catalog, 55}, {m_main, 40}});
        h.setLocal(main, m_catalog, 1, 1, j);
        jdk.add(catalog, j, {{m_catalog, 56}, {m_main, 40}});
    }
    h.setLocal(main, m_catalog, 1, 1, kNull);
    SimMap sessions = jdk.newHashMap({{m_clinit, 11}});
    h.defineStatic(sessions_class, "sessions", "java.util.Map", sessions.object);

    // Warm-up: a startup index that is dropped once the server is up.
    p.beginPhase("warmup");
    SimList index = jdk.newArrayList({{m_index, 20}, {m_main, 44}});
    h.setLocal(main, m_main, 2, 0, index.object);
    for (uint32_t i = 0; i < warmup; ++i) {
        Ref j = newJourney({{m_index, 23}, {m_main, 44}});
        h.setLocal(main, m_index, 1, 1, j);
        jdk.add(index, j, {{m_index, 24}, {m_main, 44}});
        h.work(3'000);
        h.safepoint();
    }
    h.setLocal(main, m_index, 1, 1, kNull);
    h.setLocal(main, m_main, 2, 0, kNull);  // the index is dropped here
    p.endPhase();

    p.beginPhase("serving");
    uint64_t next_session = 0, oldest_session = 0;
    uint64_t locations = 0;
    for (uint32_t i = 0; i < requests; ++i) {
        const uint32_t w = workers[i % 4];
        h.setThread(w);
        Ref line = jdk.newString({{m_parse, 112}, {m_service, 398}}, p.rng.range(30, 80));
        h.setLocal(w, m_service, 1, 0, line);
        SimMap params = jdk.newHashMap({{m_parse, 118}, {m_service, 398}});
        h.setLocal(w, m_service, 2, 0, params.object);
        for (uint32_t k = 0, n = p.rng.range(2, 4); k < n; ++k) {
            Ref key = jdk.newString({{m_parse, 121}, {m_service, 398}}, p.rng.range(3, 10));
            h.setLocal(w, m_parse, 1, 1, key);
            Ref value = jdk.newString({{m_parse, 122}, {m_service, 398}}, p.rng.range(4, 24));
            jdk.put(params, k, key, value, {{m_parse, 123}, {m_service, 398}});
        }
        h.allocArray(jdk.char_array, h.site({{m_parse, 130}, {m_service, 398}}), p.rng.range(64, 256));

        // findLocations: a new key every time, so the cache only grows.
        const Caller find = {{m_find, 77}, {m_service, 402}};
        Ref key = h.alloc(query_key, h.site({{m_find, 74}, {m_service, 402}}));
        h.setLocal(w, m_find, 1, 1, key);
        h.set(key, s_key_text, jdk.newString({{m_find, 74}, {m_service, 402}}, p.rng.range(8, 20)));
        SimList result = jdk.newArrayList({{m_search, 40}, {m_find, 77}, {m_service, 402}});
        h.setLocal(w, m_find, 2, 1, result.object);
        const uint32_t k = 1 + i % 4;
        for (uint32_t j = 0; j < k; ++j) {
            Ref loc = newLocation({{m_search, 44}, {m_find, 77}, {m_service, 402}}, p.rng.range(6, 14));
            jdk.add(result, loc, {{m_search, 45}, {m_find, 77}, {m_service, 402}});
        }
        locations += k;
        jdk.put(cache, uint64_t{i} + 1'000'000'000ull, key, result.object, {{m_find, 79}, {m_service, 402}});

        if (i % 3 == 0) {  // a booking, kept in a session map of at most 50 entries
            const Caller at = {{m_book, 63}, {m_service, 405}};
            Ref b = h.alloc(booking, h.site({{m_book, 60}, {m_service, 405}}));
            h.setLocal(w, m_book, 1, 1, b);
            h.set(b, s_b_id, jdk.newString(at, 36));
            h.set(b, s_b_journey, h.get(h.get(catalog.object, 0), i % 200));
            h.set(b, s_b_date, jdk.newDate(at));
            jdk.put(sessions, next_session++, h.get(b, s_b_id), b, at);
            if (next_session - oldest_session > 50) jdk.remove(sessions, oldest_session++);
        }
        h.work(p.rng.range(20'000, 60'000));
        h.clearLocals(w);
        h.safepoint();
    }
    h.setThread(main);
    uint32_t final_gc = h.gc();
    p.endPhase();

    p.expect("final_gc", final_gc);
    p.expect("requests", requests);
    p.expect("locations", locations);
    p.finish();
    return {};
}

}  // namespace memcity::synth
