// Holds known numbers of objects in static fields, says READY with its pid, and waits for a
// line on stdin (while the test asks the JVM for its class histogram), then exits.
import java.util.ArrayList;
import java.util.List;

public class Histogram {
    static final class A { int x; }
    static final class B { long[] data = new long[4]; }
    static final class C { String s; C(String s) { this.s = s; } }
    static final List<A> AS = new ArrayList<>();
    static final List<B> BS = new ArrayList<>();
    static final C[] CS = new C[777];

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 30000; i++) { A a = new A(); if (i % 3 == 0) AS.add(a); }
        for (int i = 0; i < 5000; i++) BS.add(new B());
        for (int i = 0; i < CS.length; i++) CS[i] = new C("c" + i);
        for (int i = 0; i < 200000; i++) { Object garbage = new A(); }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine();
        System.out.println("bye " + AS.size() + " " + BS.size() + " " + CS.length);
    }
}
