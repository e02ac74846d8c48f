package dev.crucible.e2e.cluster;

import io.fabric8.kubeapitest.KubeAPIServer;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Crashes and restarts the control plane's own processes for fault runs (issue 41, point 1): kube-apiserver
 * or etcd is SIGKILLed and later started again with the same command line, so it comes back on the same
 * port with the same certificates and (etcd) the same data directory, as a restarted static pod would.
 *
 * <p>kube-api-test starts both processes and, when either exits without its own {@code stop()}, stops the
 * whole control plane. So before the kill its handle is marked stopped (reflection into its private
 * fields: it has no API for this); the restarted process is then this class's, and is stopped with the
 * cluster.
 */
public final class ControlPlaneRestarts {

    /** A control-plane process: where kube-api-test keeps its handle and its Process. */
    public enum Component {
        KUBE_APISERVER("kubeApiServerProcess", "apiServerProcess"),
        ETCD("etcdProcess", "etcdProcess");

        final String holderField;
        final String processField;

        Component(String holderField, String processField) {
            this.holderField = holderField;
            this.processField = processField;
        }
    }

    private final KubeAPIServer apiServer;
    private final Path workDir;
    private final KubernetesClient client;
    /** The process started again by this class, per component (absent: still kube-api-test's). */
    private final Map<Component, Process> restarted = new EnumMap<>(Component.class);
    private final Map<Component, List<String>> commands = new EnumMap<>(Component.class);
    private final List<Process> started = new ArrayList<>();

    ControlPlaneRestarts(KubeAPIServer apiServer, Path workDir, String kubeconfig) {
        this.apiServer = apiServer;
        this.workDir = workDir;
        // its own client: no retries and a short timeout, so a probe of a server that is still down fails at once
        Config config = Config.fromKubeconfig(kubeconfig);
        config.setRequestRetryBackoffLimit(0);
        config.setRequestTimeout(5_000);
        config.setConnectionTimeout(2_000);
        this.client = new KubernetesClientBuilder().withConfig(config).build();
    }

    /** SIGKILLs {@code c} (its command line is kept for {@link #start}); returns once it is gone. */
    public synchronized void kill9(Component c) {
        Process p = restarted.get(c);
        if (p == null) {
            p = libraryProcess(c);
        }
        if (!p.isAlive()) {
            throw new IllegalStateException(c + " is not running");
        }
        commands.put(c, commandLine(p.pid()));
        try {
            new ProcessBuilder("kill", "-9", Long.toString(p.pid())).inheritIO().start().waitFor();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(c + " pid " + p.pid() + " survived SIGKILL for 30 s");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Starts {@code c} again with the command line it had when killed, and waits until the API server
     * answers {@code /readyz} ok (which checks etcd too). Returns the seconds that took.
     */
    public synchronized double start(Component c, Duration timeout) {
        List<String> cmd = commands.get(c);
        if (cmd == null) {
            throw new IllegalStateException(c + " was not killed by this class: nothing to start again");
        }
        long t0 = System.nanoTime();
        try {
            Path log = workDir.resolve(c.name().toLowerCase() + "-restarted.log");
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            restarted.put(c, p);
            started.add(p);
            long deadline = t0 + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (!p.isAlive()) {
                    throw new IllegalStateException(c + " exited with " + p.exitValue() + " after its restart; see " + log);
                }
                if (ready()) {
                    return (System.nanoTime() - t0) / 1e9;
                }
                Thread.sleep(200);
            }
            throw new IllegalStateException(c + " not ready " + timeout.toSeconds() + " s after its restart; see " + log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private boolean ready() {
        try {
            return "ok".equals(client.raw("/readyz"));
        } catch (RuntimeException e) {
            return false; // connection refused while it starts
        }
    }

    /** Stops what this class started (the cluster's close calls it). */
    synchronized void close() {
        client.close();
        for (Process p : started) {
            p.destroy();
        }
        for (Process p : started) {
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** kube-api-test's Process for {@code c}, its handle marked stopped so that the exit does not stop everything. */
    private Process libraryProcess(Component c) {
        try {
            Object holder = field(KubeAPIServer.class, c.holderField).get(apiServer);
            field(holder.getClass(), "stopped").setBoolean(holder, true);
            return (Process) field(holder.getClass(), c.processField).get(holder);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this kube-api-test version keeps " + c + " elsewhere: " + e, e);
        }
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field f = type.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }

    /** The exact argv of a running process, from /proc (no shell quoting to get wrong). */
    private static List<String> commandLine(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            String s = new String(raw, StandardCharsets.UTF_8);
            if (s.endsWith("\0")) {
                s = s.substring(0, s.length() - 1);
            }
            return Arrays.asList(s.split("\0", -1));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the command line of pid " + pid, e);
        }
    }
}
