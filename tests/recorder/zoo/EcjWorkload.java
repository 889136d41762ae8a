// Drives the Eclipse compiler for Java (ecj, libecj-java) through its batch API: it compiles a
// list of JDK sources, as Java 8 code against the running JDK, several times over. ecj is a real
// program no one here wrote; this driver is only its workload.
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.eclipse.jdt.core.compiler.batch.BatchCompiler;

public class EcjWorkload {
    public static void main(String[] args) throws Exception {
        List<String> sources = Files.readAllLines(Path.of(args[0]));
        Path out = Path.of(args[1]);
        int rounds = Integer.parseInt(args[2]);
        for (int round = 0; round < rounds; round++) {
            List<String> argv = new ArrayList<>(List.of("-d", out.resolve("r" + round).toString(), "-8", "-nowarn",
                    "-proceedOnError"));
            argv.addAll(sources);
            StringWriter log = new StringWriter();
            boolean ok = BatchCompiler.compile(argv.toArray(new String[0]), new PrintWriter(log), new PrintWriter(log), null);
            long classes;
            try (Stream<Path> files = Files.walk(out.resolve("r" + round))) {
                classes = files.filter(f -> f.toString().endsWith(".class")).count();
            }
            System.out.println("round " + round + ": " + sources.size() + " sources, " + classes + " classes"
                    + (ok ? "" : ", errors"));
            Zoo.checkpoint("round" + round);
        }
    }
}
