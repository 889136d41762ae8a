// Allocates on several threads until told to stop (by time, System.exit from a thread, or a
// kill), with a System.gc() now and then.
import java.util.ArrayList;
import java.util.List;

public class Churner {
    static volatile boolean stop;
    static final List<int[]> KEEP = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        long millis = Long.parseLong(args[0]);
        String mode = args.length > 1 ? args[1] : "run";
        System.out.println("PID " + ProcessHandle.current().pid());
        System.out.flush();
        Thread[] threads = new Thread[3];
        for (int t = 0; t < threads.length; t++) {
            final int id = t;
            threads[t] = new Thread(() -> {
                long n = 0;
                while (!stop) {
                    Object o = (n % 7 == 0) ? new int[(int) (n % 64)] : new StringBuilder("x").append(n);
                    if (n++ % 5000 == 0) synchronized (KEEP) { KEEP.add(new int[8]); }
                }
            }, "churner-" + id);
            threads[t].start();
        }
        if (mode.equals("exit")) {
            new Thread(() -> {
                try { Thread.sleep(millis); } catch (InterruptedException e) { }
                System.exit(3);
            }, "exiter").start();
        }
        long end = System.currentTimeMillis() + (mode.equals("forever") ? Long.MAX_VALUE / 2 : millis);
        while (System.currentTimeMillis() < end) { Thread.sleep(100); System.gc(); }
        stop = true;
        for (Thread t : threads) t.join();
        System.out.println("kept " + KEEP.size());
    }
}
