package dev.crucible.snapshot.agent;

import dev.crucible.snapshot.SnapshotAgentMain;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The agent as a separate JVM, so a test can kill -9 it like a crashed DaemonSet pod. */
final class AgentProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+) recovered=(\\d+)");

    final Process process;
    final int port;
    final int recovered;
    /** The agent's first line ("… listening on … freeze-watchdog=PID|off"). */
    final String banner;

    private AgentProcess(Process process, int port, int recovered, String banner) {
        this.process = process;
        this.port = port;
        this.recovered = recovered;
        this.banner = banner;
    }

    /** A rollout root whose running.json names {@code pid}, so a separate agent (local scope) may act on it. */
    static Path registerRollout(Path rollouts, long pid) throws IOException {
        Path dir = java.nio.file.Files.createDirectories(rollouts.resolve("attempt-" + pid));
        java.nio.file.Files.writeString(dir.resolve("running.json"), "{\"agentPid\":" + pid + ",\"agentStartTicks\":"
                + dev.crucible.snapshot.target.ProcFs.startTime(pid) + "}");
        return rollouts;
    }

    static AgentProcess start(Path store, Path tokenFile, Path log, String... extra) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new java.util.ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                SnapshotAgentMain.class.getName(), "--store", store.toString(), "--port", "0",
                "--token-file", tokenFile.toString()));
        cmd.addAll(List.of(extra));
        Process p = new ProcessBuilder(cmd)
                .redirectError(log.toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                return null;
            }
        }).get(180, TimeUnit.SECONDS); // recovery may wait for an orphaned criu first
        Matcher m = line == null ? null : LISTENING.matcher(line);
        if (m == null || !m.find()) {
            p.destroyForcibly();
            throw new IllegalStateException("agent did not start: " + line + " (see " + log + ")");
        }
        // keep draining stdout so the agent never blocks on a full pipe
        Thread drain = new Thread(() -> {
            try {
                while (out.readLine() != null) {
                    // discard
                }
            } catch (IOException ignored) {
                // agent gone
            }
        });
        drain.setDaemon(true);
        drain.start();
        return new AgentProcess(p, Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), line);
    }

    void kill9() throws InterruptedException {
        process.destroyForcibly(); // SIGKILL: no shutdown hook runs
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            kill9();
        }
    }
}
