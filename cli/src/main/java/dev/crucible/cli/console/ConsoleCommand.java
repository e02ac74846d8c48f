package dev.crucible.cli.console;

import dev.crucible.cli.Main;
import dev.crucible.console.http.ConsoleServer;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code crucible console --dir RUNS}: the web console over crucible run's result folders, until Ctrl-C. */
@Command(name = "console", mixinStandardHelpOptions = true,
        description = {"Serve the console (a web page) over the crucible run result folders under DIR: every rollout, filtered and "
                + "grouped by detector and finding pattern, and each rollout's trace (timeline, findings, diffs, grading).",
            "Everything is served by Crucible itself (no CDN). Runs until Ctrl-C."})
public final class ConsoleCommand implements Callable<Integer> {
    public static final int DEFAULT_PORT = 8470;

    @Spec
    CommandSpec spec;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "The folder of result folders (crucible run --out, crucible demo --out).")
    Path dir;

    @Option(names = "--port", defaultValue = "" + DEFAULT_PORT, paramLabel = "N", description = "Port to listen on; 0 picks a free one. Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(names = "--bind", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
            description = "Address to listen on. Default: ${DEFAULT-VALUE} (this machine only: the local console has no login, "
                    + "and the traces hold the agents' output).")
    String bind;

    @Option(names = "--snapshot-store", paramLabel = "DIR",
            description = "Snapshot store the workspace-at-a-step view reads (read-only). Default: $CRUCIBLE_SNAPSHOTS or "
                    + "~/.cache/crucible/snapshots (as crucible run).")
    Path snapshotStore;

    @Option(names = "--index-dir", paramLabel = "DIR",
            description = "Where the search index is kept between starts (a restart indexes only the rollouts that changed). "
                    + "Default: one folder per --dir in $XDG_CACHE_HOME/crucible/console-index (~/.cache/...). Never under --dir.")
    Path indexDir;

    /** Counted down by Ctrl-C (a shutdown hook), or by a test that started the command in-process. */
    final CountDownLatch stop = new CountDownLatch(1);

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isDirectory(dir)) {
            err.println("crucible console: --dir: " + dir + " is not a folder");
            err.flush();
            return Main.EXIT_INVALID;
        }
        if (port < 0 || port > 65535) {
            err.println("crucible console: --port: " + port + " is outside 0..65535");
            err.flush();
            return Main.EXIT_INVALID;
        }
        Path index = indexDir != null ? indexDir : ConsoleServer.defaultIndexDir(dir);
        if (index.toAbsolutePath().normalize().startsWith(dir.toRealPath())) {
            err.println("crucible console: --index-dir: " + index + " is under --dir " + dir + " (the agents' folders): choose a folder outside it");
            err.flush();
            return Main.EXIT_INVALID;
        }
        ConsoleServer server;
        try {
            server = ConsoleServer.start(dir, bind, port, true, snapshotStore != null ? snapshotStore : ConsoleServer.defaultSnapshotStore(), index);
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            err.println("crucible console: cannot listen on " + bind + ":" + port + ": " + cause.getMessage()
                    + (port != 0 ? " (another port: --port N, or --port 0 for a free one)" : ""));
            err.flush();
            return 1;
        }
        int n = server.store().index().rollouts().size();
        out.println("crucible console: " + n + " rollout" + (n == 1 ? "" : "s") + " under " + server.store().root());
        out.println("crucible console: open " + server.url() + "   (Ctrl-C to stop)");
        out.flush();
        Thread hook = new Thread(stop::countDown, "console-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            stop.await();
        } finally {
            server.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the JVM is ending anyway
            }
        }
        return 0;
    }
}
