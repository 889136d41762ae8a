// G1's humongous objects, of known sizes: ARRAYS byte arrays of MB mebibytes each, kept; a full
// GC; half of them dropped and some small objects made (an ArrayList whose array stays below half
// a 1 MiB region: not humongous itself); a second full GC. With 1 MiB regions each array of 3 MiB
// spans 4 regions (its 16-byte header pushes it past 3): the first full GC leaves 8 humongous
// starts and 32 humongous regions, the second 4 and 16. With a third argument "wait" it then says
// READY with its pid and waits for a line on its input (for memcity dump to take its heap).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;

public class Humongous {
    static Object keep;

    public static void main(String[] args) throws Exception {
        final int arrays = Integer.parseInt(args[0]);
        final int mib = Integer.parseInt(args[1]);
        ArrayList<byte[]> big = new ArrayList<>();
        for (int i = 0; i < arrays; i++) big.add(new byte[mib << 20]);
        System.gc();
        for (int i = 0; i < arrays / 2; i++) big.remove(big.size() - 1);
        ArrayList<Object> small = new ArrayList<>();
        for (int i = 0; i < 50000; i++) small.add(new int[4]);
        System.gc();
        keep = small;
        System.out.println(big.size() + " " + small.size());
        if (args.length > 2 && args[2].equals("wait")) {
            System.out.println("READY " + ProcessHandle.current().pid());
            new BufferedReader(new InputStreamReader(System.in)).readLine();
        }
    }
}
