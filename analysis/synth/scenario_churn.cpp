// churn (VMIL19 §3.4): a server that handles requests calmly, then goes through a burst
// in which every request boxes a hundred ints and creates a hundred lambdas that die at once
// (the finagle-http pattern), then calms down again. GCs come quickly during the burst and each
// frees almost everything it finds.
//
//   calm-1: C = 3,000 x scale requests, 40 us of work each, a Response and its body (garbage)
//   burst:  B = 3,000 x scale requests, 2 us of work, 100 Integers + 100 lambdas each (garbage)
//   calm-2: C requests as in calm-1
// A pool of 64 connections (each with a 4 KiB buffer) lives throughout.
#include "synth/program.h"

namespace memcity::synth {

Status runChurn(TraceWriter& out, const SynthOptions& options) {
    const uint32_t calm = 3'000 * options.scale, burst = 3'000 * options.scale;
    Program p(out, options, "churn", 256u * 1024);
    SimHeap& h = p.heap;
    Jdk& jdk = p.jdk;
    using K = FieldKind;

    const uint32_t main = h.startThread("main");
    const uint32_t workers[2] = {h.startThread("finagle/netty4-1", true),
                                 h.startThread("finagle/netty4-2", true)};
    const std::string pkg = "com.twitter.finagle.";
    const uint32_t connection = h.defineClass(
        pkg + "netty4.Connection",
        {{"host", "java.lang.String", K::kRef}, {"buffer", "byte[]", K::kRef}, {"port", "int", K::kInt}});
    const uint32_t pool = h.defineClass(pkg + "pool.ConnectionPool", {});
    const uint32_t response = h.defineClass(
        pkg + "http.Response", {{"content", "java.lang.String", K::kRef}, {"status", "int", K::kInt}});
    const uint32_t lambda = h.defineClass("org.renaissance.twitter.finagle.FinagleHttp$$Lambda$17", {});
    const uint32_t m_main =
        h.defineMethod("org.renaissance.twitter.finagle.FinagleHttp", "setUp", "()V", "FinagleHttp.scala");
    const uint32_t m_run = h.defineMethod("org.renaissance.twitter.finagle.FinagleHttp", "runIteration",
                                          "()V", "FinagleHttp.scala");
    const uint32_t m_handle =
        h.defineMethod(pkg + "http.HttpServer", "handle",
                       "(Lcom/twitter/finagle/http/Request;)Lcom/twitter/util/Future;", "HttpServer.scala");
    const uint32_t m_pool =
        h.defineMethod(pkg + "pool.ConnectionPool", "<clinit>", "()V", "ConnectionPool.scala");
    const uint32_t s_host = h.refSlot(connection, "host"), s_buffer = h.refSlot(connection, "buffer");
    const uint32_t s_content = h.refSlot(response, "content");

    h.setThread(main);
    Ref conns = h.allocArray(jdk.object_array, h.site({{m_pool, 8}, {m_main, 30}}), 64);
    h.defineStatic(pool, "connections", pkg + "netty4.Connection[]", conns);
    for (uint32_t i = 0; i < 64; ++i) {
        Ref c = h.alloc(connection, h.site({{m_pool, 10}, {m_main, 30}}));
        h.set(conns, i, c);
        h.set(c, s_host, jdk.newString({{m_pool, 11}, {m_main, 30}}, 9));
        h.set(c, s_buffer, h.allocArray(jdk.byte_array, h.site({{m_pool, 12}, {m_main, 30}}), 4096));
    }

    auto calmRequest = [&](uint32_t i) {
        const uint32_t w = workers[i % 2];
        h.setThread(w);
        Ref r = h.alloc(response, h.site({{m_handle, 57}}));
        h.setLocal(w, m_handle, 1, 0, r);
        h.set(r, s_content, jdk.newString({{m_handle, 58}}, p.rng.range(200, 800)));
        h.work(40'000);
        h.clearLocals(w);
        h.safepoint();
    };

    p.beginPhase("calm-1");
    for (uint32_t i = 0; i < calm; ++i)
        calmRequest(i);
    p.endPhase();

    p.beginPhase("burst");
    for (uint32_t i = 0; i < burst; ++i) {
        const uint32_t w = workers[i % 2];
        h.setThread(w);
        for (uint32_t k = 0; k < 100; ++k) {
            jdk.newInteger({{m_run, 31}});
            h.alloc(lambda, h.site({{m_run, 32}}));
        }
        h.work(2'000);
        h.safepoint();
    }
    p.endPhase();

    p.beginPhase("calm-2");
    for (uint32_t i = 0; i < calm; ++i)
        calmRequest(i);
    h.setThread(main);
    h.gc();
    p.endPhase();

    p.expect("connections", 64);
    p.finish();
    return {};
}

}  // namespace memcity::synth
