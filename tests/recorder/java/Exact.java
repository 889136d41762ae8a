// Allocates exactly known numbers of objects of its own classes, on two threads, as the very
// first thing it does. Half the Items are kept in a static list, then System.gc().
import java.util.ArrayList;
import java.util.List;

public class Exact {
    static final class Item { int value; Item(int v) { value = v; } }
    static final class Other { long a, b; }
    static final List<Object> KEEP = new ArrayList<>(1 << 20);

    public static void main(String[] args) throws Exception {
        int items = Integer.parseInt(args[0]), others = Integer.parseInt(args[1]);
        Item[] all = new Item[items];
        for (int i = 0; i < items; i++) all[i] = new Item(i);
        Thread worker = new Thread(() -> {
            Other[] mine = new Other[others];
            for (int i = 0; i < others; i++) mine[i] = new Other();
            synchronized (KEEP) { for (int i = 0; i < others; i += 4) KEEP.add(mine[i]); }
        }, "exact-worker");
        worker.start();
        synchronized (KEEP) { for (int i = 0; i < items; i += 2) KEEP.add(all[i]); }
        worker.join();
        all = null;
        System.gc();
        System.out.println("kept " + KEEP.size());
    }
}
