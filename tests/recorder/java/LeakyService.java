// A service, deterministic: REQUESTS requests in PHASES phases, a System.gc() after each (a full
// GC at the same point of the program in every run, whatever the collector), then 200 ms idle (a
// service's full GCs come far apart: a recorder counts the heap after each meanwhile). Each
// request builds strings and boxes numbers (garbage at once) and replaces an entry of a cache of
// 20,000 (churn: the replaced entry dies old); after the first third of the phases, every 50th
// also files a session with its history in a static map that nothing empties (the leak, from a
// known phase on). The Java twin of synth's growing-map and churn for the recorder's
// sampled-against-exact tests.
//
// usage: java LeakyService REQUESTS PHASES
// Prints "served N requests, M sessions, checksum X".
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class LeakyService {
    static final class Entry {
        final String key;
        final List<Integer> numbers;

        Entry(String key, List<Integer> numbers) {
            this.key = key;
            this.numbers = numbers;
        }
    }

    static final class Session {
        final long id;
        final String user;
        final long[] history;

        Session(long id, String user, long[] history) {
            this.id = id;
            this.user = user;
            this.history = history;
        }
    }

    static final Map<Long, Session> SESSIONS = new HashMap<>();
    static final Entry[] CACHE = new Entry[20_000];
    static long checksum;

    static void handle(long i, boolean leaking) {
        final int slot = (int) (i % CACHE.length);
        String path = new StringBuilder(24).append("/item/").append(slot).append("?user=").append(i & 1023).toString();
        String user = path.substring(path.indexOf('=') + 1);
        List<Integer> numbers = new ArrayList<>(8);
        for (int k = 0; k < 8; k++)
            numbers.add((int) ((i * 31 + k * 977) & 0xffff) + 128);
        CACHE[slot] = new Entry(path, numbers);
        if (leaking && i % 50 == 0) {
            long[] history = new long[32];
            for (int k = 0; k < history.length; k++)
                history[k] = i * k;
            SESSIONS.put(i, new Session(i, user, history));
        }
        checksum += numbers.get((int) (i & 7)) + user.length();
    }

    public static void main(String[] args) {
        final long requests = Long.parseLong(args[0]);
        final int phases = Integer.parseInt(args[1]);
        long i = 0;
        for (int p = 1; p <= phases; p++) {
            for (; i < requests * p / phases; i++)
                handle(i, p > phases / 3);
            System.gc();
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        System.out.println("served " + i + " requests, " + SESSIONS.size() + " sessions, checksum " + checksum);
    }
}
