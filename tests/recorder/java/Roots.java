// A map held by a static field, a list held by a local variable of another thread, and a weak
// reference; a GC happens while they are all in place.
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.concurrent.CountDownLatch;

public class Roots {
    static final HashMap<String, String> REGISTRY = new HashMap<>();
    static final class Payload { int[] data = new int[16]; }
    static WeakReference<Payload> weak;
    static Payload strong;

    static void hold(CountDownLatch ready, CountDownLatch done) throws InterruptedException {
        ArrayList<String> held = new ArrayList<>();
        for (int i = 0; i < 100; i++) held.add("held-" + i);
        ready.countDown();
        done.await();
        System.out.println("held " + held.size());
    }

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 50; i++) REGISTRY.put("key-" + i, "value-" + i);
        strong = new Payload();
        weak = new WeakReference<>(strong);
        CountDownLatch ready = new CountDownLatch(1), done = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            try { hold(ready, done); } catch (InterruptedException e) { throw new RuntimeException(e); }
        }, "holder");
        holder.start();
        ready.await();
        System.gc();
        Thread.sleep(300);  // the agent walks the heap after the GC
        done.countDown();
        holder.join();
        System.out.println("registry " + REGISTRY.size() + " " + (weak.get() != null));
    }
}
