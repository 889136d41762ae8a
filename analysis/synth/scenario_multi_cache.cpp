// multi-cache (ManLang18 §5.1): every queried Product is stored in two caches, a
// HashMap<Long, Product> in the static field IdCache.idCache and a HashMap<String, Product> in
// NameCache.nameCache, and neither is ever cleared. The name cache's keys are the products' own
// name strings, so ownership is shared: each map alone retains little (its table, its nodes, and
// for the id cache its Long keys), the two together retain nearly the whole heap. Twenty small
// configuration maps (Config.maps) stand beside them, as in the paper.
//
//   for (i = 0; i < Q; i++)                        // Q = 20,000 x scale, on two worker threads
//       Database.query(i):                         //   a request string (garbage)
//           p = new Product(i, "product-" + i)     //   Product, String + byte[], int[5], int[2]
//           IdCache.put(Long.valueOf(i), p)        //   Long, HashMap$Node
//           NameCache.put(p.name, p)               //   HashMap$Node (key shared with p.name)
//   System.gc()                                    // the final GC
#include "synth/program.h"

namespace memcity::synth {

Status runMultiCache(TraceWriter& out, const SynthOptions& options) {
    const uint32_t q = 20'000 * options.scale;
    Program p(out, options, "multi-cache", 512u * 1024);
    SimHeap& h = p.heap;
    Jdk& jdk = p.jdk;
    using K = FieldKind;

    const uint32_t main = h.startThread("main");
    const uint32_t workers[2] = {h.startThread("query-worker-1"), h.startThread("query-worker-2")};
    const std::string pkg = "jku.anttracks.example.data.";
    const uint32_t product = h.defineClass(pkg + "Product", {{"id", "long", K::kLong},
                                                             {"name", "java.lang.String", K::kRef},
                                                             {"price", "double", K::kDouble},
                                                             {"ratings", "int[]", K::kRef},
                                                             {"stock", "int[]", K::kRef}});
    const uint32_t id_cache = h.defineClass(pkg + "IdCache", {});
    const uint32_t name_cache = h.defineClass(pkg + "NameCache", {});
    const uint32_t config = h.defineClass(pkg + "Config", {});
    const uint32_t database = h.defineClass(pkg + "Database", {{"url", "java.lang.String", K::kRef}});
    const uint32_t m_main =
        h.defineMethod("jku.anttracks.example.Main", "main", "([Ljava/lang/String;)V", "Main.java");
    const uint32_t m_query =
        h.defineMethod(pkg + "Database", "query", "(J)Ljku/anttracks/example/data/Product;", "Database.java");
    const uint32_t m_load =
        h.defineMethod(pkg + "Database", "load", "(J)Ljku/anttracks/example/data/Product;", "Database.java");
    const uint32_t m_product =
        h.defineMethod(pkg + "Product", "<init>", "(JLjava/lang/String;)V", "Product.java");
    const uint32_t m_id_put =
        h.defineMethod(pkg + "IdCache", "put", "(Ljku/anttracks/example/data/Product;)V", "IdCache.java");
    const uint32_t m_name_put =
        h.defineMethod(pkg + "NameCache", "put", "(Ljku/anttracks/example/data/Product;)V", "NameCache.java");
    const uint32_t m_id_clinit = h.defineMethod(pkg + "IdCache", "<clinit>", "()V", "IdCache.java");
    const uint32_t m_name_clinit = h.defineMethod(pkg + "NameCache", "<clinit>", "()V", "NameCache.java");
    const uint32_t m_config_clinit = h.defineMethod(pkg + "Config", "<clinit>", "()V", "Config.java");
    const uint32_t s_name = h.refSlot(product, "name");
    const uint32_t s_ratings = h.refSlot(product, "ratings");
    const uint32_t s_stock = h.refSlot(product, "stock");

    // Startup: the database, the two caches and twenty small configuration maps.
    h.setThread(main);
    Ref db = h.alloc(database, h.site({{m_main, 12}}));
    h.set(db, 0, jdk.newString({{m_main, 12}}, 32));
    h.setLocal(main, m_main, 1, 0, db);
    SimMap ids = jdk.newHashMap({{m_id_clinit, 9}});
    h.defineStatic(id_cache, "idCache", "java.util.Map", ids.object);
    SimMap names = jdk.newHashMap({{m_name_clinit, 9}});
    h.defineStatic(name_cache, "nameCache", "java.util.Map", names.object);
    Ref maps = h.allocArray(jdk.object_array, h.site({{m_config_clinit, 14}}), 20);
    h.defineStatic(config, "maps", "java.util.Map[]", maps);
    std::vector<SimMap> small;
    for (uint32_t m = 0; m < 20; ++m) {
        small.push_back(jdk.newHashMap({{m_config_clinit, 16}}));
        h.set(maps, m, small.back().object);
        for (uint32_t e = 0; e < 3; ++e) {
            Ref key = jdk.newString({{m_config_clinit, 17}}, 10);
            h.setLocal(main, m_config_clinit, 1, 1, key);
            Ref value = jdk.newInteger({{m_config_clinit, 17}});
            jdk.put(small.back(), uint64_t{m} * 16 + e, key, value, {{m_config_clinit, 17}});
        }
    }
    h.setLocal(main, m_config_clinit, 1, 1, kNull);

    p.beginPhase("queries");
    for (uint32_t i = 0; i < q; ++i) {
        const uint32_t w = workers[i % 2];
        h.setThread(w);
        // The request string of the query: garbage once the query returns.
        Ref request = jdk.newString({{m_query, 31}}, p.rng.range(24, 64));
        h.setLocal(w, m_query, 1, 0, request);
        Ref prod = h.alloc(product, h.site({{m_load, 52}, {m_query, 33}}));
        h.setLocal(w, m_query, 2, 0, prod);
        uint32_t digits = 1;
        for (uint32_t v = i; v >= 10; v /= 10)
            ++digits;
        h.set(prod, s_name, jdk.newString({{m_product, 18}, {m_load, 52}, {m_query, 33}}, 8 + digits));
        h.set(prod, s_ratings,
              h.allocArray(jdk.int_array, h.site({{m_product, 19}, {m_load, 52}, {m_query, 33}}), 5));
        h.set(prod, s_stock,
              h.allocArray(jdk.int_array, h.site({{m_product, 20}, {m_load, 52}, {m_query, 33}}), 2));
        Ref key = jdk.newLong({{m_id_put, 21}, {m_query, 35}});
        h.setLocal(w, m_id_put, 1, 1, key);
        jdk.put(ids, i, key, prod, {{m_id_put, 21}, {m_query, 35}});
        h.setLocal(w, m_id_put, 1, 1, kNull);
        jdk.put(names, i, h.get(prod, s_name), prod, {{m_name_put, 21}, {m_query, 36}});
        h.work(2'000);
        h.clearLocals(w);
        h.safepoint();
    }
    h.setThread(main);
    uint32_t final_gc = h.gc();
    p.endPhase();

    p.expect("final_gc", final_gc);
    p.expect("products", q);
    p.expect("table_capacity", ids.capacity);
    p.finish();
    return {};
}

}  // namespace memcity::synth
