// The checkpoints the zoo's workloads share (tests/recorder/test_zoo.cpp). With -Dzoo.gc=true a
// checkpoint forces a full GC (System.gc()); with -Dzoo.hold=NAME the checkpoint NAME then says
// READY <pid> and waits for a line on standard input, while a test asks the JVM for its class
// histogram. Without the properties a checkpoint does nothing.
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;

public final class Zoo {
    private Zoo() {}

    public static void checkpoint(String name) throws IOException {
        if (Boolean.getBoolean("zoo.gc")) System.gc();
        if (name.equals(System.getProperty("zoo.hold"))) {
            System.out.println("READY " + ProcessHandle.current().pid() + " at " + name);
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in)).readLine();
        }
    }
}
