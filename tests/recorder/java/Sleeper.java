// Says "ready <pid>", then answers each line on stdin with "echo <line>" until stdin ends, and
// exits 0: a JVM that waits while the attach tests talk to it, and shows it still works after.
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Sleeper {
    public static void main(String[] args) throws Exception {
        System.out.println("ready " + ProcessHandle.current().pid());
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null;) {
            System.out.println("echo " + line);
            System.out.flush();
        }
    }
}
