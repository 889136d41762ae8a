// steady: a shop server with no leak. A product cache holds at most 500 entries (the oldest is
// evicted), active sessions are held strongly only while active (at most 20) and otherwise only
// through WeakReferences in a registry of 100, and every request leaves short-lived garbage.
// After the cache fills, the reachable heap stays flat.
//
//   S = 6,000 x scale requests on two threads; request i
//       - parses a request line and a parameter map (garbage)
//       - looks up product (i * 7) % 2,000 in the cache; a miss loads a CacheEntry (a String
//         name, a byte[] image of 256..1024 bytes) and evicts the oldest entry past 500
//       - every 10th request opens a session (a Session with a cart Object[]), registers a
//         WeakReference to it, and keeps it active; past 20 active sessions the oldest ends
//   System.gc() at the end.
#include <deque>

#include "synth/program.h"

namespace memcity::synth {

Status runSteady(TraceWriter& out, const SynthOptions& options) {
    const uint32_t requests = 6'000 * options.scale;
    Program p(out, options, "steady", 256u * 1024);
    SimHeap& h = p.heap;
    Jdk& jdk = p.jdk;
    using K = FieldKind;

    const uint32_t main = h.startThread("main");
    const uint32_t workers[2] = {h.startThread("shop-worker-1"), h.startThread("shop-worker-2")};
    const std::string pkg = "com.example.shop.";
    const uint32_t cache_entry = h.defineClass(
        pkg + "CacheEntry",
        {{"name", "java.lang.String", K::kRef}, {"image", "byte[]", K::kRef}, {"price", "long", K::kLong}});
    const uint32_t session = h.defineClass(pkg + "Session", {{"user", "java.lang.String", K::kRef},
                                                             {"cart", "java.lang.Object[]", K::kRef},
                                                             {"started", "long", K::kLong}});
    const uint32_t cache_class = h.defineClass(pkg + "ProductCache", {});
    const uint32_t registry_class = h.defineClass(pkg + "SessionRegistry", {});
    const uint32_t m_handle = h.defineMethod(
        pkg + "ShopServlet", "doGet", "(Ljavax/servlet/http/HttpServletRequest;)V", "ShopServlet.java");
    const uint32_t m_load =
        h.defineMethod(pkg + "ProductCache", "load", "(I)Lcom/example/shop/CacheEntry;", "ProductCache.java");
    const uint32_t m_open =
        h.defineMethod(pkg + "SessionRegistry", "open", "(Ljava/lang/String;)Lcom/example/shop/Session;",
                       "SessionRegistry.java");
    const uint32_t m_clinit = h.defineMethod(pkg + "ProductCache", "<clinit>", "()V", "ProductCache.java");
    const uint32_t m_reg_clinit =
        h.defineMethod(pkg + "SessionRegistry", "<clinit>", "()V", "SessionRegistry.java");
    const uint32_t s_name = h.refSlot(cache_entry, "name"), s_image = h.refSlot(cache_entry, "image");
    const uint32_t s_user = h.refSlot(session, "user"), s_cart = h.refSlot(session, "cart");

    h.setThread(main);
    SimMap cache = jdk.newHashMap({{m_clinit, 15}});
    h.defineStatic(cache_class, "cache", "java.util.HashMap", cache.object);
    Ref registry = h.allocArray(jdk.object_array, h.site({{m_reg_clinit, 9}}), 100);
    h.defineStatic(registry_class, "registry", "java.lang.ref.WeakReference[]", registry);
    SimMap active = jdk.newHashMap({{m_reg_clinit, 10}});
    h.defineStatic(registry_class, "active", "java.util.HashMap", active.object);

    std::deque<uint64_t> cached;  // keys in insertion order
    std::deque<uint64_t> open_sessions;
    uint64_t sessions = 0;
    p.beginPhase("serving");
    for (uint32_t i = 0; i < requests; ++i) {
        const uint32_t w = workers[i % 2];
        h.setThread(w);
        Ref line = jdk.newString({{m_handle, 33}}, p.rng.range(30, 90));
        h.setLocal(w, m_handle, 1, 0, line);
        SimMap params = jdk.newHashMap({{m_handle, 35}});
        h.setLocal(w, m_handle, 2, 0, params.object);
        for (uint32_t k = 0, n = p.rng.range(1, 3); k < n; ++k) {
            Ref key = jdk.newString({{m_handle, 36}}, p.rng.range(3, 9));
            h.setLocal(w, m_handle, 3, 0, key);
            jdk.put(params, k, key, jdk.newString({{m_handle, 36}}, p.rng.range(3, 20)), {{m_handle, 36}});
        }
        const uint64_t product = (uint64_t{i} * 7) % 2000;
        if (jdk.getValue(cache, product) == kNull) {
            Ref e = h.alloc(cache_entry, h.site({{m_load, 51}, {m_handle, 40}}));
            h.setLocal(w, m_load, 1, 1, e);
            h.set(e, s_name, jdk.newString({{m_load, 52}, {m_handle, 40}}, p.rng.range(8, 24)));
            h.set(
                e, s_image,
                h.allocArray(jdk.byte_array, h.site({{m_load, 53}, {m_handle, 40}}), p.rng.range(256, 1024)));
            Ref key = jdk.newInteger({{m_load, 55}, {m_handle, 40}});
            jdk.put(cache, product, key, e, {{m_load, 55}, {m_handle, 40}});
            cached.push_back(product);
            if (cached.size() > 500) {
                jdk.remove(cache, cached.front());
                cached.pop_front();
            }
        }
        if (i % 10 == 0) {
            const Caller at = {{m_open, 27}, {m_handle, 44}};
            Ref s = h.alloc(session, h.site({{m_open, 25}, {m_handle, 44}}));
            h.setLocal(w, m_open, 1, 1, s);
            h.set(s, s_user, jdk.newString(at, p.rng.range(6, 16)));
            h.set(s, s_cart, h.allocArray(jdk.object_array, h.site(std::span<const FrameSpec>(at)), 8));
            h.set(registry, static_cast<uint32_t>(sessions % 100),
                  jdk.newWeakReference({{m_open, 29}, {m_handle, 44}}, s));
            jdk.put(active, sessions, h.get(s, s_user), s, {{m_open, 30}, {m_handle, 44}});
            open_sessions.push_back(sessions++);
            if (open_sessions.size() > 20) {
                jdk.remove(active, open_sessions.front());
                open_sessions.pop_front();
            }
        }
        h.work(p.rng.range(15'000, 35'000));
        h.clearLocals(w);
        h.safepoint();
    }
    h.setThread(main);
    uint32_t final_gc = h.gc();
    p.endPhase();

    p.expect("final_gc", final_gc);
    p.expect("cache_entries", cached.size());
    p.expect("active_sessions", open_sessions.size());
    p.expect("weak_references", std::min<uint64_t>(sessions, 100));
    p.finish();
    return {};
}

}  // namespace memcity::synth
