package dev.crucible.verifier.toolchain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Cargo's build reuse between setup and grading, the way Go's build cache is reused: setup compiles the test
 * binaries ({@code cargo test --no-run} with the verifier's package and feature flags) into a target folder inside
 * the prefix, which the agent's box and grading see read-only; each grading starts from a copy of it as its own
 * CARGO_TARGET_DIR ({@code Episode}). Crates from the registry keep their fingerprints across the copy (same
 * CARGO_HOME sources, same flags), so grading compiles only the workspace's own crates, as it must: before, it
 * compiled the whole crate graph in every grading (starship timed out at 120 s after setup compiled it too).
 * One grading's target is never kept for the next: a build script of the agent's crate can write anything there.
 */
final class CargoWarmup {
    /** The prefix's warm target folder; {@link ExecEnvironment#warmCargoTarget}. */
    static final String TARGET = "cargo-target";

    private CargoWarmup() {
    }

    /**
     * {@code cargo test ARGS --no-run} for the last {@code cargo test} line of {@code testCommand} (its options before
     * {@code --}, less those that only change how tests run or print), else plain {@code cargo test --no-run}.
     */
    static List<String> arguments(String testCommand) {
        List<String> out = new ArrayList<>(List.of("test"));
        String line = null;
        if (testCommand != null) {
            for (String l : testCommand.split("\n")) if (l.matches("\\s*(\\w+=\\S*\\s+)*cargo\\s+(\\+\\S+\\s+)?test(\\s.*)?")) line = l;
        }
        if (line != null) {
            String[] w = line.strip().split("\\s+");
            int i = 0;
            while (!w[i].equals("test")) i++;
            for (i++; i < w.length && !w[i].equals("--"); i++) {
                if (w[i].matches("--no-fail-fast|-q|--quiet|-v+|--verbose|--doc|[|;&<>].*") || w[i].contains("$")) {
                    if (w[i].matches("[|;&<>].*")) break;
                    continue;
                }
                out.add(w[i]);
            }
        }
        out.add("--no-run");
        return out;
    }

    /** Compiles into the prefix's target within {@code left}; a failure or no time left is a warning, never an error. */
    static ExecEnvironment run(ExecEnvironment e, Path cargo, Path workspace, String testCommand, Duration left, StringBuilder log) throws IOException {
        if (left.compareTo(Duration.ofSeconds(5)) < 0) {
            return e.withWarning("no time left in setup's limit to compile the crates in setup: each grading compiles them");
        }
        Path target = e.prefix().resolve(TARGET);
        Files.createDirectories(target);
        Map<String, String> env = new java.util.LinkedHashMap<>(e.forSetup());
        env.put("CARGO_TARGET_DIR", target.toString());
        env.put("CARGO_NET_OFFLINE", "true"); // cargo fetch ran just before: nothing more to download
        List<String> argv = new ArrayList<>(List.of(cargo.toString()));
        argv.addAll(arguments(testCommand));
        ExecEnvironments.Out o = ExecEnvironments.run(argv, env, workspace, left.compareTo(Duration.ofMinutes(20)) > 0 ? Duration.ofMinutes(20) : left);
        log.append("$ cargo ").append(String.join(" ", argv.subList(1, argv.size())))
                .append("   (compiles the crates into the prefix; each grading starts from a copy)\n").append(o.text());
        return o.code() == 0 ? e : e.withWarning("compiling the crates in setup failed or ran out of time (exit " + o.code()
                + "): each grading compiles what is missing: " + o.tail());
    }
}
