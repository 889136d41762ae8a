// Deaths filed under the GC that freed them, with GCs in quick succession: each batch of objects
// dies at exactly one System.gc(), GC 3 following GC 2 at once. Prints nothing the test needs
// but the end; the test knows the GCs by their order (0 to 5, then the recorder's at exit).
// After each GC the program waits a moment before it allocates: an object allocated while the
// recorder walks the heap right after a GC may be taken for one alive at it (docs/recorder.md,
// Limitations), which is not what this program checks.
import java.util.ArrayList;
import java.util.List;

public class QuickGcs {
    static final class A { int v; }
    static final class B { long v; }
    static final class C { Object v; }

    static List<Object> batch(int n, java.util.function.Supplier<Object> make) {
        List<Object> list = new ArrayList<>(n);
        for (int i = 0; i < n; ++i) list.add(make.get());
        return list;
    }

    static void gc() {
        System.gc();
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) {
        List<Object> a = batch(1000, A::new);
        gc();                           // GC 0: the As alive
        a = null;
        gc();                           // GC 1: the As die
        List<Object> b = batch(2000, B::new);
        b = null;
        System.gc();                    // GC 2: the Bs die, never alive at a GC, and at once
        gc();                           // GC 3: nothing of theirs
        List<Object> c = batch(3000, C::new);
        gc();                           // GC 4: the Cs alive
        c.subList(0, 1000).clear();
        gc();                           // GC 5: 1000 Cs die, 2000 alive
        System.out.println("quick gcs done " + c.size());
    }
}
