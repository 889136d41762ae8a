// buggy-stack (ICPE18 §5.3): a stack whose pop() returns elements[--size] without
// clearing the slot, so popped objects stay reachable until a later push overwrites them.
//
//   BuggyStack stack = new BuggyStack();      // main:40, a local of main
//   fill(stack, N);                           // main:43: N TestObjects pushed
//   drain(stack, N);                          // main:44: all popped, none can die
//   System.gc();                              // main:45: GC "a"
//   fill(stack, N / 10);                      // main:47: overwrites the first N/10 slots
//   drain(stack, N / 10);                     // main:48
//   System.gc();                              // main:49: GC "b"
//
// With N = 10,000 x scale; at scale 100 these are the paper's numbers (1,000,000 and 100,000).
#include "synth/program.h"

namespace memcity::synth {

Status runBuggyStack(TraceWriter& out, const SynthOptions& options) {
    const uint32_t n = 10'000 * options.scale;
    // A young generation that grows with the scale keeps the number of GCs the same at every scale.
    Program p(out, options, "buggy-stack", 64u * 1024 * options.scale);
    SimHeap& h = p.heap;
    Jdk& jdk = p.jdk;
    using K = FieldKind;

    const uint32_t main = h.startThread("main");
    const uint32_t test_object = h.defineClass("at.jku.data.TestObject", {{"id", "int", K::kInt}});
    const uint32_t buggy_stack = h.defineClass(
        "at.jku.data.BuggyStack", {{"elements", "java.lang.Object[]", K::kRef}, {"size", "int", K::kInt}});
    const uint32_t m_main =
        h.defineMethod("at.jku.BuggyMain", "main", "([Ljava/lang/String;)V", "BuggyMain.java");
    const uint32_t m_fill =
        h.defineMethod("at.jku.BuggyMain", "fill", "(Lat/jku/data/BuggyStack;I)V", "BuggyMain.java");
    const uint32_t m_init = h.defineMethod("at.jku.data.BuggyStack", "<init>", "()V", "BuggyStack.java");
    const uint32_t m_push =
        h.defineMethod("at.jku.data.BuggyStack", "push", "(Ljava/lang/Object;)V", "BuggyStack.java");
    const uint32_t m_grow = h.defineMethod("at.jku.data.BuggyStack", "grow", "()V", "BuggyStack.java");
    const uint32_t m_copy = h.defineMethod("java.util.Arrays", "copyOf",
                                           "([Ljava/lang/Object;I)[Ljava/lang/Object;", "Arrays.java");
    const uint32_t s_elements = h.refSlot(buggy_stack, "elements");

    Ref stack = h.alloc(buggy_stack, h.site({{m_main, 40}}));
    h.setLocal(main, m_main, 1, 0, stack);
    h.set(stack, s_elements, h.allocArray(jdk.object_array, h.site({{m_init, 12}, {m_main, 40}}), 16));
    uint32_t size = 0;

    auto fill = [&](uint32_t count, int32_t line) {
        const uint32_t obj_site = h.site({{m_fill, 21}, {m_main, line}});
        const uint32_t grow_site =
            h.site({{m_copy, 3481}, {m_grow, 31}, {m_push, 18}, {m_fill, 22}, {m_main, line}});
        for (uint32_t i = 0; i < count; ++i) {
            Ref o = h.alloc(test_object, obj_site);
            Ref elements = h.get(stack, s_elements);
            if (size == h.lengthOf(elements)) {  // push() grows the array by doubling
                Ref bigger = h.allocArray(jdk.object_array, grow_site, 2 * size);
                for (uint32_t k = 0; k < size; ++k)
                    h.set(bigger, k, h.get(elements, k));
                h.set(stack, s_elements, bigger);
                elements = bigger;
            }
            h.set(elements, size++, o);
            h.work(200);
            h.setLocal(main, m_fill, 2, 1, o);  // the object under construction is a local of fill()
            h.safepoint();
        }
        h.setLocal(main, m_fill, 2, 1, kNull);
    };
    auto drain = [&](uint32_t count) {
        for (uint32_t i = 0; i < count; ++i) {
            --size;  // the bug: elements[size] keeps its reference
            h.work(150);
            h.safepoint();
        }
    };

    p.beginPhase("fill");
    fill(n, 43);
    p.endPhase();
    p.beginPhase("drain");
    drain(n);
    uint32_t gc_a = h.gc();
    p.endPhase();
    p.beginPhase("refill");
    fill(n / 10, 47);
    drain(n / 10);
    uint32_t gc_b = h.gc();
    p.endPhase();

    p.expect("gc_a", gc_a);
    p.expect("gc_b", gc_b);
    p.expect("test_objects", n);
    p.expect("born", n / 10);
    p.expect("died", n / 10);
    p.expect("permanent", n - n / 10);
    p.finish();
    return {};
}

}  // namespace memcity::synth
