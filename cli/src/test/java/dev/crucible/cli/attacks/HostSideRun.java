package dev.crucible.cli.attacks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.verifier.pristine.TreeCopy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * One run of an issue-34 attack ({@code attacks/host/NAME.sh}) by a real CLI process, as root or as a
 * throwaway uid: the example environment with the scripts in {@code workspace/.host-attacks}, a rollout,
 * a bounded run (a CLI still running at the bound is killed and reported as such), the disk blocks of the run's own
 * folders sampled while it runs, and what the run left (result.json, agent.log).
 */
final class HostSideRun implements AutoCloseable {
    /**
     * How the CLI ended: its exit code (-1 when the test killed it at the bound), seconds, output, peak disk growth, and
     * peak growth of the host's shared memory (Shmem in /proc/meminfo: where a tmpfs's files are) when the disk was sampled.
     */
    /** {@code peakShmemGrowth}: the most the run's own tmpfs mounts held ({@link RunTmpfs}), not the host-wide Shmem. */
    record Ended(int exit, long seconds, String output, boolean killedByTest, long peakDiskGrowth, long peakShmemGrowth) {
        Ended(int exit, long seconds, String output, boolean killedByTest, long peakDiskGrowth) {
            this(exit, seconds, output, killedByTest, peakDiskGrowth, 0);
        }
    }

    record TokenRun(String token, String output) {}

    final AttackHost host;
    final Integer uid;
    final Path envDir;
    final Path out;
    private final Map<String, String> envSh = new LinkedHashMap<>();
    /** The CLI's java.io.tmpdir in {@link #runSignalled}, where its state folders would be left. */
    final Path tmp;
    private long cliPid;

    HostSideRun(Integer uid, String name) throws Exception {
        this.uid = uid;
        this.host = new AttackHost();
        this.envDir = host.base.resolve("env");
        this.out = host.base.resolve("out");
        this.tmp = host.base.resolve("tmp");
        AttackFixtures.attackEnvironment(envDir, "hidden-tests-" + name, "");
        Path scripts = Files.createDirectories(envDir.resolve("workspace/.host-attacks"));
        try (Stream<Path> s = Files.list(AttackFixtures.repo().resolve("attacks/host"))) {
            for (Path p : s.toList()) Files.copy(p, scripts.resolve(p.getFileName()));
        }
        writeEnvSh();
    }

    /** Rewrites environment.yaml (e.g. a limit or the grading timeout). */
    void environment(UnaryOperator<String> edit) throws IOException {
        Path f = envDir.resolve("environment.yaml");
        String before = Files.readString(f);
        String after = edit.apply(before);
        if (after.equals(before)) throw new IllegalStateException("environment.yaml: the edit changed nothing");
        Files.writeString(f, after);
    }

    void env(String key, String value) throws IOException {
        envSh.put(key, value);
        writeEnvSh();
    }

    private void writeEnvSh() throws IOException {
        StringBuilder b = new StringBuilder();
        envSh.forEach((k, v) -> b.append(k).append('=').append(AttackFixtures.jsonString(v)).append("\nexport ").append(k).append('\n'));
        Files.writeString(envDir.resolve("workspace/.host-attacks/env.sh"), b.toString());
    }

    /** An embedded rollout whose agent runs {@code attacks/host/SCRIPT.sh}, with limits.maxDurationSeconds. */
    void rollout(String script, int maxSeconds) throws IOException {
        Files.writeString(envDir.resolve("rollout.yaml"), AttackFixtures.rolloutWithLimits("host-" + script,
                "sh .host-attacks/" + script + ".sh", maxSeconds, ""));
    }

    void interactiveRollout(String name, int maxSeconds) throws IOException {
        Files.writeString(envDir.resolve("rollout.yaml"), """
                apiVersion: crucible.dev/v1alpha1
                kind: Rollout
                metadata:
                  name: %s
                spec:
                  environmentRef:
                    name: calc-divide-bugfix
                  mode: interactive
                  limits:
                    maxDurationSeconds: %d
                """.formatted(name, maxSeconds));
    }

    /** A file of the CLI's user only (0600 in a 0700 folder, owned by the run's uid), outside anything the box shows. */
    void ownFile(Path file, String content) throws Exception {
        Files.createDirectories(file.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        if (uid != null) {
            for (Path d = file; !d.equals(host.home); d = d.getParent()) CliProcess.chown(d, uid);
        }
    }

    /** Runs the CLI on the environment with {@code extraArgs}, killed after {@code limitSeconds}; samples the disk if asked. */
    Ended run(List<String> extraArgs, long limitSeconds, boolean sampleDisk) throws Exception {
        List<String> args = new ArrayList<>(List.of("run", "-f", envDir.toString(), "--out", out.toString()));
        args.addAll(extraArgs);
        Path log = host.base.resolve("cli.log");
        // The blocks under the run's own folders (its out folder with the disk image, its HOME, its temporary folder), not
        // the file system's free space: CI runs other test classes beside this one on the same disk, and one of them once
        // took 1.4 GiB during a sparse-file run that itself had written nothing (official CI of fb9a3e72).
        Files.createDirectories(tmp);
        if (uid != null) CliProcess.chown(tmp, uid);
        long before = sampleDisk ? blocksUnder(host.base) : 0;
        long peak = before;
        long shmemPeak = 0; // the run's own tmpfs mounts (RunTmpfs): none before it starts
        long t0 = System.nanoTime();
        Process p = CliProcess.start(uid, host.home, args, null, log, Map.of("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + tmp));
        boolean ended;
        do {
            if (sampleDisk) {
                peak = Math.max(peak, blocksUnder(host.base));
                shmemPeak = Math.max(shmemPeak, RunTmpfs.used(p.toHandle()));
            }
            ended = p.waitFor(100, TimeUnit.MILLISECONDS);
        } while (!ended && System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(limitSeconds));
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        String output = Files.exists(log) ? Files.readString(log) : "";
        if (sampleDisk) System.out.printf("[host-side] %s: the run's folders grew by at most %d MiB on disk (%d MiB in its tmpfs)%n",
                host.base, (peak - before) >> 20, shmemPeak >> 20);
        return new Ended(ended ? p.exitValue() : -1, seconds, output, !ended, peak - before, shmemPeak);
    }

    /**
     * Bytes of disk blocks under {@code dir} on its own file system ({@code du -x}: a loop-mounted volume is counted once,
     * as its image file; sparse files by the blocks they hold; a hard-linked file once).
     */
    static long blocksUnder(Path dir) throws IOException, InterruptedException {
        Process du = new ProcessBuilder("du", "-sx", "--block-size=1", dir.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String text = new String(du.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        du.waitFor();
        // du exits 1 when a file vanished while it walked (the run deletes its scratch): its total is still the rest
        return text.isEmpty() ? 0 : Long.parseLong(text.split("\\s+")[0]);
    }

    /** As {@link #run} (no disk sampling), with the CLI's temporary folder {@link #tmp}, so {@link #leftovers} sees its state folders. */
    Ended runInOwnTmp(long limitSeconds) throws Exception {
        return runInOwnTmp(limitSeconds, Map.of());
    }

    /** As above, with these variables for the CLI as well ({@link CliProcess#HEAP}: its heap). */
    Ended runInOwnTmp(long limitSeconds, Map<String, String> cliEnv) throws Exception {
        Files.createDirectories(tmp);
        if (uid != null) CliProcess.chown(tmp, uid);
        Path log = host.base.resolve("cli.log");
        long t0 = System.nanoTime();
        Map<String, String> env = new LinkedHashMap<>(Map.of("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + tmp));
        // -Dhostside.diskVolume=image: a run without root puts its disk limit on an ext4 image (fuse2fs), not a tmpfs
        String volume = System.getProperty("hostside.diskVolume", "");
        if (!volume.isBlank()) env.put("CRUCIBLE_DISK_VOLUME", volume);
        env.putAll(cliEnv);
        Process p = CliProcess.start(uid, host.home, List.of("run", "-f", envDir.toString(), "--out", out.toString()), null, log, env);
        cliPid = p.pid();
        boolean ended = p.waitFor(limitSeconds, TimeUnit.SECONDS);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        String output = Files.exists(log) ? Files.readString(log) : "";
        return new Ended(ended ? p.exitValue() : -1, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), output, !ended, 0);
    }

    /**
     * Runs the CLI (its temporary folder {@link #tmp}), sends it {@code signal} once the agent has printed {@code planted}, and
     * waits up to {@code limitSeconds} in all (then kills it: killedByTest).
     */
    Ended runSignalled(String planted, String signal, long limitSeconds) throws Exception {
        Files.createDirectories(tmp);
        if (uid != null) CliProcess.chown(tmp, uid);
        Path log = host.base.resolve("cli.log");
        long t0 = System.nanoTime();
        long until = t0 + TimeUnit.SECONDS.toNanos(limitSeconds);
        Process p = CliProcess.start(uid, host.home, List.of("run", "-f", envDir.toString(), "--out", out.toString()), null, log,
                Map.of("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + tmp));
        cliPid = p.pid();
        // without root agent.log lies on the run's own mount until the run ends: its progress lines quote the agent's last output
        while (p.isAlive() && System.nanoTime() < until && !agentLog().contains(planted)
                && !(Files.exists(log) && Files.readString(log).contains(planted))) {
            Thread.sleep(200);
        }
        Thread.sleep(3000); // the monitor scans every second or two: it is now at (or past) the FIFO
        new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor();
        boolean ended = p.waitFor(Math.max(1, until - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        String output = Files.exists(log) ? Files.readString(log) : "";
        return new Ended(ended ? p.exitValue() : -1, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0), output, !ended, 0);
    }

    /** What a run started by {@link #runSignalled} left on the host: processes naming {@code marker}, state folders, cgroups, mounts. */
    List<String> leftovers(String marker) throws IOException {
        List<String> left = new ArrayList<>();
        ProcessHandle.allProcesses().filter(h -> h.info().commandLine().orElse("").contains(marker))
                .forEach(h -> left.add("process " + h.pid() + ": " + h.info().commandLine().orElse("")));
        if (Files.isDirectory(tmp)) {
            try (Stream<Path> s = Files.list(tmp)) {
                // the run's own temporary folder: any crucible-* there is the run's (state, mount helper, channels, home);
                // only crucible-state- was looked at, and a uid's mount helper folder stayed unseen (host round 8, cases 18, 19)
                s.filter(f -> f.getFileName().toString().startsWith("crucible-")).forEach(f -> left.add("left in its temporary folder: " + f));
            }
        }
        // OUT/ROLLOUT/attempt-N/sandbox/.crucible-state: not deeper, and a kept workspace may hold a tree past PATH_MAX
        try (Stream<Path> s = Files.walk(out, 5)) {
            s.filter(f -> f.getFileName().toString().equals(".crucible-state")).forEach(f -> left.add("state folder " + f));
        }
        // LeftoverBoxes' names: (crucible-)box-<cli pid>-<n>, in each hierarchy or its crucible/ folder (v1 and v2)
        java.util.regex.Pattern box = java.util.regex.Pattern.compile("(crucible-)?box-" + cliPid + "(-\\d+)+"); // box-PID-UID-N
        try (Stream<Path> s = Files.walk(Path.of("/sys/fs/cgroup"), 3)) {
            s.filter(d -> box.matcher(d.getFileName().toString()).matches()).forEach(d -> left.add("cgroup " + d));
        } catch (IOException | java.io.UncheckedIOException unreadable) {
            // no cgroup file system here
        }
        for (String l : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            if (l.contains(" " + out + "/") || l.contains(" " + out + " ") || l.contains(" " + tmp + "/")) left.add("mount " + l);
        }
        return left;
    }

    /** The host's shared memory in bytes (tmpfs and shm files): Shmem of /proc/meminfo. */
    static long shmem() throws IOException {
        for (String l : Files.readAllLines(Path.of("/proc/meminfo"))) {
            if (l.startsWith("Shmem:")) return Long.parseLong(l.replaceAll("[^0-9]", "")) << 10;
        }
        return 0;
    }

    /** Starts the interactive run, reads OUT/api-token once it exists, then stops the CLI (SIGTERM, then SIGKILL). */
    TokenRun interactiveToken() throws Exception {
        Path log = host.base.resolve("cli.log");
        Process p = CliProcess.start(uid, host.home, List.of("run", "-f", envDir.toString(), "--out", out.toString(), "--port", "0"), null, log);
        Path tokenFile = out.resolve("api-token");
        String token = null;
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (System.nanoTime() < until && p.isAlive() && !(Files.exists(log) && Files.readString(log).contains("environment API on"))) {
                Thread.sleep(200);
            }
            Thread.sleep(500); // the token line, where there is one, comes with the API's first lines
            if (Files.exists(tokenFile)) token = Files.readString(tokenFile).strip();
        } finally {
            new ProcessBuilder("kill", "-TERM", Long.toString(p.pid())).start().waitFor();
            if (!p.waitFor(60, TimeUnit.SECONDS)) p.destroyForcibly();
        }
        return new TokenRun(token, Files.exists(log) ? Files.readString(log) : "");
    }

    /**
     * An interactive run driven as a trainer would: reset, then each of {@code commands} as a bash step, the
     * findings, verify; every answer's body is returned with the CLI's output (the run ends after verify).
     */
    Ended drive(List<String> commands, long limitSeconds) throws Exception {
        Path log = host.base.resolve("cli.log");
        long t0 = System.nanoTime();
        Process p = CliProcess.start(uid, host.home, List.of("run", "-f", envDir.toString(), "--out", out.toString(), "--port", "0"), null, log);
        StringBuilder answers = new StringBuilder();
        try {
            java.util.regex.Pattern endpoint = java.util.regex.Pattern.compile("environment API on (http://127\\.0\\.0\\.1:\\d+)");
            String base = null;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (base == null && System.nanoTime() < until && p.isAlive()) {
                java.util.regex.Matcher m = endpoint.matcher(Files.exists(log) ? Files.readString(log) : "");
                if (m.find()) base = m.group(1);
                else Thread.sleep(200);
            }
            if (base == null) throw new AssertionError("no environment API: " + (Files.exists(log) ? Files.readString(log) : ""));
            String token = Files.readString(out.resolve("api-token")).strip();
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            List<String[]> calls = new ArrayList<>();
            calls.add(new String[] {"/v1/reset", "{}"});
            for (String c : commands) calls.add(new String[] {"/v1/step", "{\"tool\":\"bash\",\"args\":{\"command\":" + AttackFixtures.jsonString(c) + "}}"});
            calls.add(new String[] {"/v1/findings", null});
            calls.add(new String[] {"/v1/verify", "{}"});
            for (String[] c : calls) {
                java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(java.net.URI.create(base + c[0]))
                        .timeout(java.time.Duration.ofSeconds(120)).header("Authorization", "Bearer " + token);
                b = c[1] == null ? b.GET() : b.header("content-type", "application/json").POST(java.net.http.HttpRequest.BodyPublishers.ofString(c[1]));
                answers.append(c[0]).append(": ").append(http.send(b.build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body()).append('\n');
            }
        } finally {
            if (!p.waitFor(Math.max(1, limitSeconds - TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0)), TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        }
        String output = Files.exists(log) ? Files.readString(log) : "";
        boolean ended = !p.isAlive();
        return new Ended(ended ? p.exitValue() : -1, TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0),
                output + "\nAPI answers:\n" + answers, !ended, 0);
    }

    JsonNode result() throws IOException {
        Path f = out.resolve("result.json");
        return Files.exists(f) ? new ObjectMapper().readTree(f.toFile()) : null;
    }

    String agentLog() throws IOException {
        Path f = out.resolve("agent.log");
        return Files.exists(f) ? Files.readString(f) : "";
    }

    /** Files under OUT (but the workspace, which the agent wrote) whose first MiB holds {@code marker}. */
    List<String> filesContaining(String marker) throws IOException {
        List<String> hits = new ArrayList<>();
        if (!Files.exists(out)) return hits;
        Path workspace = out.resolve("sandbox");
        List<Path> files = new ArrayList<>();
        // the agent's workspace is not walked (its tree may be nested past PATH_MAX, where a walk of paths fails)
        Files.walkFileTree(out, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult preVisitDirectory(Path d, java.nio.file.attribute.BasicFileAttributes a) {
                return d.equals(workspace) ? java.nio.file.FileVisitResult.SKIP_SUBTREE : java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFile(Path f, java.nio.file.attribute.BasicFileAttributes a) {
                if (a.isRegularFile()) files.add(f);
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
        for (Path f : files) {
            byte[] head;
            try (var in = Files.newInputStream(f)) {
                head = in.readNBytes(1 << 20);
            }
            if (new String(head, StandardCharsets.ISO_8859_1).contains(marker)) hits.add(out.relativize(f).toString());
        }
        return hits;
    }

    String context(Ended e) throws IOException {
        return "CLI as " + (uid == null ? "root" : "uid " + uid) + ", exit " + e.exit() + " after " + e.seconds() + " s"
                + (e.killedByTest() ? " (killed by the test)" : "") + "\n" + e.output() + "\nagent.log:\n" + agentLog();
    }

    @Override
    public void close() throws Exception {
        try {
            TreeCopy.delete(out); // files a killed run left behind may belong to the box's uids
        } catch (java.io.UncheckedIOException e) {
            // a tree nested past PATH_MAX (hostile-files) cannot be removed by path: AttackHost removes it with rm
        }
        host.close();
    }
}
