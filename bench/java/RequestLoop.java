// A busy service's request loop, allocation-bound: each request builds its path in a
// StringBuilder, makes strings of it, boxes eight numbers into an ArrayList and replaces one entry
// of a cache that holds CACHE entries (about 15 allocations a request; the cache's entries age into
// the old generation and die there). With LEAK > 0, every LEAK-th request also files a session
// record in a static map that nothing empties: a leak that grows for the whole run.
//
// usage: java RequestLoop SECONDS|REQUESTSr [CACHE [LEAK]]
//   SECONDS      serve requests for that long (e.g. 5), then print how many were served
//   REQUESTSr    serve exactly that many requests (e.g. 2000000r), then print the time taken
// Prints "requests N in S s, cache C, sessions K, checksum X" on stdout.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class RequestLoop {
    static final class Entry {
        final String key;
        final long sum;
        final List<Integer> numbers;

        Entry(String key, long sum, List<Integer> numbers) {
            this.key = key;
            this.sum = sum;
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

    // What the leak holds: every LEAK-th request's session, never removed.
    static final Map<Long, Session> SESSIONS = new HashMap<>();

    static Entry[] cache;
    static long checksum;

    static void handle(long i, int leak) {
        final int slot = (int) (i % cache.length);
        StringBuilder sb = new StringBuilder(24);
        sb.append("/item/").append(slot).append("?user=").append(i & 1023);
        String path = sb.toString();
        String user = path.substring(path.indexOf('=') + 1);
        List<Integer> numbers = new ArrayList<>(8);
        long sum = 0;
        for (int k = 0; k < 8; k++) {
            Integer n = (int) ((i * 31 + k * 977) & 0xffff) + 128;  // outside Integer's cache: boxed
            numbers.add(n);
            sum += n;
        }
        Entry old = cache[slot];
        if (old != null) sum += old.sum & 1;
        cache[slot] = new Entry(path, sum, numbers);
        if (leak > 0 && i % leak == 0) SESSIONS.put(i, new Session(i, user, new long[] {i, sum, slot}));
        checksum += sum + user.length();
    }

    public static void main(String[] args) {
        final String amount = args.length > 0 ? args[0] : "5";
        final int cacheSize = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        final int leak = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        cache = new Entry[cacheSize];
        final long begin = System.nanoTime();
        long served = 0;
        if (amount.endsWith("r")) {
            final long requests = Long.parseLong(amount.substring(0, amount.length() - 1));
            for (; served < requests; served++)
                handle(served, leak);
        } else {
            final long end = begin + (long) (Double.parseDouble(amount) * 1e9);
            // The clock is read once per 1,024 requests, so that reading it costs nothing.
            while (System.nanoTime() < end)
                for (int k = 0; k < 1024; k++, served++)
                    handle(served, leak);
        }
        final double seconds = (System.nanoTime() - begin) / 1e9;
        System.out.printf("requests %d in %.3f s, cache %d, sessions %d, checksum %d%n", served, seconds, cacheSize,
                          SESSIONS.size(), checksum);
    }
}
