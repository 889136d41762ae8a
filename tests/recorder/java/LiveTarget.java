// A program for the live tests (attach, pause, step, detach). Says "ready <pid>", then follows
// the commands on stdin, one a line:
//   alloc N   its worker thread, started before anything was attached, allocates N
//             LiveTarget$Known and keeps them; "allocated N"
//   drop      forgets them; "dropped"
//   gc        System.gc(); "gc"
//   churn     a thread that allocates garbage without end, counting its allocations into
//             bytes 8-15 of the counter file; "churning"
//   quit      "done <Known allocated in all>", and exits 0
// A spinner thread counts without allocating, into the first 8 bytes of the file its first
// argument names (memory-mapped): a test reads there whether the program runs.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;

public class LiveTarget {
    static final class Known {
        final long value;

        Known(long value) {
            this.value = value;
        }
    }

    static final ArrayList<Known> kept = new ArrayList<>();
    static final Object lock = new Object();
    static int asked = 0;  // objects the worker is to allocate (under lock)
    static long total = 0;
    static volatile Object churned;  // the churner's last allocation

    public static void main(String[] args) throws Exception {
        MappedByteBuffer counter;
        try (RandomAccessFile file = new RandomAccessFile(args[0], "rw")) {
            counter = file.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, 16);
        }
        Thread spinner = new Thread(() -> {
            for (long n = 1;; ++n) counter.putLong(0, n);
        }, "spinner");
        spinner.setDaemon(true);
        spinner.start();
        Thread worker = new Thread(LiveTarget::work, "worker");
        worker.setDaemon(true);
        worker.start();
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null;) {
            if (line.startsWith("alloc ")) {
                int n = Integer.parseInt(line.substring(6));
                synchronized (lock) {
                    asked = n;
                    lock.notifyAll();
                    while (asked != 0) lock.wait();
                }
                System.out.println("allocated " + n);
            } else if (line.equals("drop")) {
                synchronized (lock) {
                    kept.clear();
                }
                System.out.println("dropped");
            } else if (line.equals("gc")) {
                System.gc();
                System.out.println("gc");
            } else if (line.equals("churn")) {
                Thread churner = new Thread(() -> {
                    // Into a static field: a real allocation each time, never optimised away
                    // (compiled code whose allocations escape analysis removed would make the
                    // plain rate one that code compiled while recorded, without it, cannot reach).
                    for (long n = 1;; ++n) {
                        churned = new byte[16];
                        counter.putLong(8, n);
                    }
                }, "churner");
                churner.setDaemon(true);
                churner.start();
                System.out.println("churning");
            } else if (line.equals("quit")) {
                break;
            }
            System.out.flush();
        }
        synchronized (lock) {
            System.out.println("done " + total);
        }
    }

    static void work() {
        try {
            for (;;) {
                synchronized (lock) {
                    while (asked == 0) lock.wait();
                    kept.ensureCapacity(kept.size() + asked);
                    for (int i = 0; i < asked; ++i) kept.add(new Known(total++));
                    asked = 0;
                    lock.notifyAll();
                }
            }
        } catch (InterruptedException e) {
            // the JVM exits
        }
    }
}
