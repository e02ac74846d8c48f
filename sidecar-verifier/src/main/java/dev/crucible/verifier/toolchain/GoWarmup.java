package dev.crucible.verifier.toolchain;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The arguments of setup's Go warm-up ({@code go test -count=1 -run '^$' …}): the build flags and packages of the
 * verifier's last {@code go test} line, so the build cache setup fills is the one grading reads. Go keys its cache by
 * the flags a package is compiled with: caddy's verifier runs {@code go test -short -race ./...}, the warm-up compiled
 * without -race, and grading compiled the whole module and the standard library again with it (timed out at 120 s).
 * Flags that only change how tests run (-short, -run, -v, -timeout …) stay out; they do not touch the build.
 */
final class GoWarmup {
    /** go build flags (shared by go test) that change what is compiled and take a value. */
    private static final Set<String> BUILD_WITH_VALUE = Set.of("tags", "ldflags", "gcflags", "asmflags", "mod", "modfile",
            "buildmode", "pgo", "overlay", "installsuffix", "compiler", "gccgoflags", "toolexec");
    /** go build flags that change what is compiled, without a value (or with =value). */
    private static final Set<String> BUILD_FLAGS = Set.of("race", "msan", "asan", "trimpath", "buildvcs", "linkshared");
    /** go test flags with a value in the next word (so the value is not read as a package). */
    private static final Set<String> TEST_WITH_VALUE = Set.of("run", "skip", "count", "timeout", "parallel", "p", "cpu",
            "bench", "benchtime", "shuffle", "list", "exec", "o", "outputdir", "coverprofile", "covermode", "coverpkg",
            "memprofile", "cpuprofile", "blockprofile", "mutexprofile", "trace", "fuzz", "fuzztime", "fuzzminimizetime",
            "vet");

    private GoWarmup() {
    }

    /** {@code test -count=1 -run ^$ FLAGS PACKAGES}; without a readable {@code go test} line, {@code ./...}. */
    static List<String> arguments(String testCommand) {
        List<String> out = new ArrayList<>(List.of("test", "-count=1", "-run", "^$"));
        String line = null;
        if (testCommand != null) {
            for (String l : testCommand.split("\n")) {
                if (l.matches("\\s*(\\w+=\\S*\\s+)*go\\s+test(\\s.*)?")) line = l;
            }
        }
        List<String> packages = new ArrayList<>();
        if (line != null) {
            String[] w = line.strip().split("\\s+");
            int i = 0;
            while (!w[i].equals("go")) i++;
            for (i += 2; i < w.length; i++) {
                String x = w[i];
                if (x.equals("-args") || x.matches("[|;&<>].*")) break;
                if (x.matches(".*[\"'$`\\\\].*")) return List.of("test", "-count=1", "-run", "^$", "./..."); // not read safely
                if (!x.startsWith("-")) {
                    packages.add(x);
                    continue;
                }
                String name = x.replaceFirst("^--?", "");
                String bare = name.contains("=") ? name.substring(0, name.indexOf('=')) : name;
                boolean inline = name.contains("=");
                if (BUILD_WITH_VALUE.contains(bare)) {
                    out.add(x);
                    if (!inline && i + 1 < w.length) out.add(w[++i]);
                } else if (BUILD_FLAGS.contains(bare)) {
                    out.add(x);
                } else if (TEST_WITH_VALUE.contains(bare) && !inline) {
                    i++; // its value
                }
            }
        }
        out.addAll(packages.isEmpty() ? List.of("./...") : packages);
        return out;
    }
}
