package dev.crucible.cli.attacks;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.opentest4j.TestAbortedException;

/**
 * The readers of {@link HostileReadersTest} as an unprivileged CLI user runs them: a JVM of its own started as the
 * throwaway uid ({@link CliProcess#THROWAWAY_UID}, setpriv), whose agent is that same user (as a non-root CLI's box
 * maps the agent to the CLI's user), and whose host file is that user's own 0600 file: readable by the reader, so a
 * reader that follows the agent's link would quote it. One JVM per reader runs every kind through
 * {@link HostileReadersTest#oneCase} and prints one {@code RESULT KIND PASS|SKIP|FAIL message} line per case; the test
 * turns each line back into a pass, a skip with its reason, or a failure.
 */
final class HostileReadersAsUser {
    /** Every kind of one reader, each up to the case bound, plus the JVM's start. */
    private static final long RUN_BOUND_S = HostileKinds.values().length * (HostileReadersTest.BOUND.toSeconds() + 30) + 120;
    private static final Map<Integer, Map<String, String[]>> RESULTS = new ConcurrentHashMap<>();

    private HostileReadersAsUser() {}

    /** Runs the reader's cases named by {@code args[1..]} (kind names) in this JVM; {@code args[0]}: the reader's index in ALL. */
    public static void main(String[] args) {
        HostileReaders.Reader r = HostileReaders.ALL.get(Integer.parseInt(args[0]));
        String uid = uid();
        for (int i = 1; i < args.length; i++) {
            HostileKinds k = HostileKinds.valueOf(args[i]);
            String status;
            String msg = "";
            try {
                if (!uid.equals(Integer.toString(CliProcess.THROWAWAY_UID))) throw new AssertionError("the readers' JVM runs as uid " + uid);
                HostileReadersTest.oneCase(r, k, null);
                status = "PASS";
            } catch (TestAbortedException e) {
                status = "SKIP";
                msg = e.getMessage();
            } catch (Throwable e) {
                status = "FAIL";
                msg = String.valueOf(e);
            }
            System.out.println("RESULT " + k.name() + " " + status + " " + String.valueOf(msg).replace('\n', ' '));
            System.out.flush();
        }
        System.exit(0); // a reader stuck in open() on a FIFO is a daemon thread, but end here whatever holds on
    }

    /** This process's real uid, from the kernel's own account of it. */
    private static String uid() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/self/status"))) if (l.startsWith("Uid:")) return l.split("\\s+")[1];
        } catch (java.io.IOException e) {
            // no /proc: reported as unknown below
        }
        return "unknown";
    }

    /**
     * The case's outcome as uid {@code uid}: {"PASS"|"SKIP"|"FAIL", message}. The reader's JVM is run once, for all its
     * kinds, on the first case asked.
     */
    static String[] result(int reader, HostileKinds kind, int uid) throws Exception {
        Map<String, String[]> all = RESULTS.get(reader);
        if (all == null) {
            synchronized (RESULTS) {
                all = RESULTS.get(reader);
                if (all == null) {
                    all = run(reader, uid);
                    RESULTS.put(reader, all);
                }
            }
        }
        String[] r = all.get(kind.name());
        return r != null ? r : new String[] {"FAIL", "the reader's JVM as uid " + uid + " gave no result for this kind: " + all.get("")[1]};
    }

    private static Map<String, String[]> run(int reader, int uid) throws Exception {
        Path home = Files.createTempDirectory("crucible-hostile-user-");
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
        CliProcess.chown(home, uid);
        Path log = home.resolve("readers.log");
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups",
                "env", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "LANG=C.UTF-8",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-cp", (CliProcess.BEFORE == null ? "" : CliProcess.BEFORE + java.io.File.pathSeparator) + CliProcess.readableClasspath(),
                HostileReadersAsUser.class.getName(), Integer.toString(reader)));
        for (HostileKinds k : HostileKinds.values()) cmd.add(k.name());
        Process p = new ProcessBuilder(cmd).directory(home.toFile()).redirectErrorStream(true).redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        boolean ended = p.waitFor(RUN_BOUND_S, TimeUnit.SECONDS);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        HostileKinds.run("rm", "-rf", "--one-file-system", home.toString());
        Map<String, String[]> results = new HashMap<>();
        for (String line : out.lines().toList()) {
            if (line.startsWith("[hostile-readers]")) System.out.println(line + " [reader uid " + uid + "]");
            if (!line.startsWith("RESULT ")) continue;
            String[] f = line.split(" ", 4);
            results.put(f[1], new String[] {f[2], f.length > 3 ? f[3] : ""});
        }
        String tail = out.length() > 2000 ? out.substring(out.length() - 2000) : out;
        results.put("", new String[] {"", (ended ? "exit " + p.exitValue() : "still running after " + RUN_BOUND_S + " s") + "; its output ends: " + tail});
        return results;
    }
}
