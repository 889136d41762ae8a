// Deaths filed under the GC that freed them, with GCs in quick succession: each batch of objects
// dies at exactly one System.gc(), the next GC following at once. Prints nothing the test needs
// but the end; the test knows the GCs by their order (0 to 5, then the recorder's at exit).
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

    public static void main(String[] args) {
        List<Object> a = batch(1000, A::new);
        System.gc();                    // GC 0: the As alive
        a = null;
        System.gc();                    // GC 1: the As die
        List<Object> b = batch(2000, B::new);
        b = null;
        System.gc();                    // GC 2: the Bs die, never alive at a GC
        System.gc();                    // GC 3: nothing of theirs
        List<Object> c = batch(3000, C::new);
        System.gc();                    // GC 4: the Cs alive
        c.subList(0, 1000).clear();
        System.gc();                    // GC 5: 1000 Cs die, 2000 alive
        System.out.println("quick gcs done " + c.size());
    }
}
