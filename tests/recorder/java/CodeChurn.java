// Keeps the JIT compiling, replacing and freeing code while it allocates: every round defines a
// new hidden class from the bytes of CodeChurnShape, and two threads call its allocating method
// until C1 and then C2 have compiled it. Each hidden class compiles to the same instructions as
// the one before, so a freed nmethod's memory is soon another class's code, with the same return
// pcs at the same addresses: an allocation site keyed by return pc alone would be the old class's.
// Every class is kept, so none is unloaded: only the freeing of replaced code tells them apart.
//
// args: rounds, calls per round
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

abstract class CodeChurnBase implements IntFunction<Object> {}

class CodeChurnShape extends CodeChurnBase {
    public Object apply(int i) {
        if ((i & 3) == 0) return new int[i & 15];
        return new StringBuilder(8).append(i);
    }
}

public class CodeChurn {
    static volatile Object sink;

    static void drive(IntFunction<Object> f, int calls) {
        for (int i = 0; i < calls; i++)
            sink = f.apply(i);
    }

    public static void main(String[] args) throws Throwable {
        int rounds = Integer.parseInt(args[0]);
        int calls = Integer.parseInt(args[1]);
        byte[] bytes;
        try (var in = CodeChurn.class.getResourceAsStream("CodeChurnShape.class")) {
            bytes = in.readAllBytes();
        }
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        List<Object> kept = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            Class<?> c = lookup.defineHiddenClass(bytes, true).lookupClass();
            @SuppressWarnings("unchecked")
            IntFunction<Object> f = (IntFunction<Object>) c.getDeclaredConstructor().newInstance();
            kept.add(f);
            Thread other = new Thread(() -> drive(f, calls), "churn-" + r);
            other.start();
            drive(f, calls);
            other.join();
        }
        System.out.println("rounds " + rounds + " classes " + kept.size());
    }
}
