package dev.crucible.cli.run;

import dev.crucible.cli.run.RunInputs.EnvironmentDoc;
import dev.crucible.verifier.pristine.ProtectedPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Picks the sandbox for one attempt: bubblewrap when it is installed and works here, else unconfined with the reason. */
final class SandboxChooser {
    private static volatile String bwrapProblem; // null: not probed yet; "": works

    private SandboxChooser() {}

    static Sandbox choose(boolean wanted, EnvironmentDoc env, Path workspace, AttemptDir dir, Path stateDir, Path home,
                          List<String> agentCommand) throws IOException {
        if (!wanted) return new Unconfined(home, "--no-sandbox was given");
        Path bwrap = Sandbox.findBubblewrap();
        if (bwrap == null) return new Unconfined(home, "bubblewrap (bwrap) is not installed");
        String problem = probe(bwrap);
        if (!problem.isEmpty()) return new Unconfined(home, "bubblewrap cannot create its namespaces here (" + problem + ")");
        List<Path> masked = new ArrayList<>(List.of(stateDir));
        env.verifierEnv().hiddenTestsDir().ifPresent(masked::add);
        List<Path> maskedFiles = new ArrayList<>();
        env.verifierEnv().hiddenTestsPatch().ifPresent(maskedFiles::add);
        List<Path> readOnly = Bubblewrap.protectedTargets(workspace, ProtectedPaths.of(env.verifierEnv().verifier(), env.verifierEnv().spec().hackPolicy().protectsDefaults()));
        List<Path> readable = new ArrayList<>(List.of(dir.root(), env.baseDir()));
        readable.addAll(commandFiles(agentCommand));
        return new Bubblewrap(bwrap, workspace, readable, readOnly, masked, maskedFiles);
    }

    /**
     * Folders of the files an agent command names by absolute path (e.g. {@code sh /tmp/x/agent.sh}):
     * the fresh /tmp would hide them otherwise. They stay read-only; masks still apply on top.
     */
    static List<Path> commandFiles(List<String> command) {
        List<Path> out = new ArrayList<>();
        if (command == null) return out;
        for (String arg : command) {
            for (String token : arg.split("[\\s'\"=;|&()<>]+")) {
                if (!token.startsWith("/")) continue;
                Path p = Path.of(token).normalize();
                Path dir = Files.isDirectory(p) ? p : Files.isRegularFile(p) ? p.getParent() : null;
                if (dir != null && dir.getNameCount() >= 2 && !out.contains(dir)) out.add(dir);
            }
        }
        return out;
    }

    /** One trial run, once per process: an installed bwrap can still be refused namespaces (no user namespaces, seccomp). */
    private static String probe(Path bwrap) {
        String p = bwrapProblem;
        if (p != null) return p;
        try {
            Process proc = new ProcessBuilder(bwrap.toString(), "--die-with-parent", "--unshare-net", "--unshare-pid",
                    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "true")
                    .redirectErrorStream(true).start();
            String out = new String(proc.getInputStream().readAllBytes()).strip();
            p = proc.waitFor(20, TimeUnit.SECONDS) && proc.exitValue() == 0 ? "" : (out.isEmpty() ? "exit " + proc.exitValue() : out);
        } catch (IOException e) {
            p = e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        bwrapProblem = p;
        return p;
    }
}
