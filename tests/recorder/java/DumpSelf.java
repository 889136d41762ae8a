import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

// Holds N Items in a chain (each an int, a long and the one before), dumps its own heap (live
// objects only) into the file given, as jcmd GC.heap_dump would, and exits.
// usage: java DumpSelf FILE N
public class DumpSelf {
    static final class Item {
        final int value;
        final long stamp;
        final Item next;

        Item(int value, Item next) {
            this.value = value;
            this.stamp = value * 3L;
            this.next = next;
        }
    }

    static final List<Item> ITEMS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[1]);
        Item previous = null;
        for (int i = 0; i < n; ++i) {
            previous = new Item(i, previous);
            ITEMS.add(previous);
        }
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).dumpHeap(args[0], true);
        System.out.println("dumped " + ITEMS.size());
    }
}
