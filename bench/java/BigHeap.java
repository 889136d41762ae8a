// A heap of about SIZE MiB of live objects of the kinds real programs hold: a HashMap of String
// keys to records (a long, an int, a String, a small byte[]), lists of boxed numbers, int[] and
// Object[] arrays. Says READY <pid>, then waits for a line on stdin (while bench_hprof.sh dumps it).
// usage: java -Xmx4g BigHeap SIZE
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class BigHeap {
    static final class Record {
        final long id;
        final int count;
        final String label;
        final byte[] payload;

        Record(long id, int count, String label, byte[] payload) {
            this.id = id;
            this.count = count;
            this.label = label;
            this.payload = payload;
        }
    }

    static final Map<String, Record> RECORDS = new HashMap<>();
    static final List<Object> OTHERS = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        final long target = Long.parseLong(args[0]) << 20;
        long bytes = 0;
        long i = 0;
        while (bytes < target) {
            // About 200 bytes per record with its key, entry, label and payload.
            String key = "key-" + i;
            RECORDS.put(key, new Record(i, (int) (i % 1000), "label " + (i % 5000), new byte[16 + (int) (i % 48)]));
            bytes += 200;
            if (i % 16 == 0) {
                List<Long> boxed = new ArrayList<>();
                for (int k = 0; k < 8; ++k) boxed.add(i * 31 + k);
                OTHERS.add(boxed);
                OTHERS.add(new int[(int) (i % 64)]);
                OTHERS.add(new Object[] {key, boxed});
                bytes += 8 * 24 + 80 + 4 * (i % 64) + 48;
            }
            ++i;
        }
        System.out.println("READY " + ProcessHandle.current().pid() + " " + RECORDS.size() + " records");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in)).readLine();
    }
}
