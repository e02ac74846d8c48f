package dev.crucible.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Java names files in the charset of the locale it started under ({@code sun.jnu.encoding}). With no locale set (LANG
 * unset: POSIX, as a bare container or {@code setpriv --reset-env} gives) a file the agent named {@code café.txt} could
 * not be a path: the run ended Failed ({@code InvalidPathException}), an honest fix got no grade and the monitor was
 * blind to a hack beside it (host round 6, B2). The CLI then runs itself again once under {@code C.UTF-8}, which glibc
 * always has; where even that gives no UTF-8 it goes on and says so. The second process ends with the first
 * (setpriv's --pdeathsig TERM, as the mount namespace's is tied).
 */
final class Utf8FileNames {
    static final String ENV = "CRUCIBLE_UTF8_REEXEC";
    private static final String SETPRIV = "/usr/bin/setpriv";

    private Utf8FileNames() {}

    static boolean utf8() { return "UTF-8".equalsIgnoreCase(System.getProperty("sun.jnu.encoding")); }

    /** The exit status of this command run again under C.UTF-8, or null to go on in this process. */
    static Integer reexec(String[] args) {
        if (utf8()) return null;
        if (System.getenv(ENV) != null) {
            System.err.println("crucible: this machine has no UTF-8 locale (file names are read as " + System.getProperty("sun.jnu.encoding")
                    + "): a file name outside ASCII cannot be read; set LC_ALL to a UTF-8 locale");
            return null;
        }
        List<String> cmd = new ArrayList<>();
        // tied to this process: a SIGKILL here (a supervisor's) ends the run as a SIGTERM does, with its result written
        // (host round 7, case 18: the run went on to its deadline under init, its out folder locked)
        if (java.nio.file.Files.isExecutable(Path.of(SETPRIV))) cmd.addAll(List.of(SETPRIV, "--pdeathsig", "TERM"));
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (!a.startsWith("-XX:ArchiveClassesAtExit")) cmd.add(a); // the launcher's archive is this process's to write
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).inheritIO();
        pb.environment().put("LC_ALL", "C.UTF-8");
        pb.environment().put(ENV, "1");
        try {
            Process p = pb.start();
            // a signal to this process goes on to the run (SIGTERM: it writes its result, Interrupted, and cleans up)
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                if (!p.isAlive()) return;
                p.destroy();
                try {
                    if (!p.waitFor(120, TimeUnit.SECONDS)) p.destroyForcibly();
                } catch (InterruptedException e) {
                    p.destroyForcibly();
                }
            }, "crucible-utf8-forward"));
            return p.waitFor();
        } catch (IOException e) {
            System.err.println("crucible: could not run again under C.UTF-8 (" + e.getMessage() + "): file names outside ASCII cannot be read");
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }
}
