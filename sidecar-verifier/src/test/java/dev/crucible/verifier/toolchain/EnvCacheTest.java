package dev.crucible.verifier.toolchain;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The environment cache stays bounded by last use, and never loses a prefix a live process runs in. */
class EnvCacheTest {

    private static Path prefix(Path root, String name, Duration age) throws IOException {
        Path p = Files.createDirectories(root.resolve(name).resolve("venv/bin"));
        Files.writeString(p.resolve("python3"), "#!/bin/sh\n");
        Path prefix = root.resolve(name);
        Files.createFile(prefix.resolve(EnvCache.LAST_USE));
        Files.setLastModifiedTime(prefix.resolve(EnvCache.LAST_USE), FileTime.from(Instant.now().minus(age)));
        return prefix;
    }

    @Test
    void keepsTheNewestByLastUseAndDropsTheIdle(@TempDir Path root) throws IOException {
        List<Path> all = new ArrayList<>();
        for (int i = 0; i < 6; i++) all.add(prefix(root, "env-" + i, Duration.ofHours(i + 1))); // env-0 the newest
        Path ancient = prefix(root, "env-old", Duration.ofDays(40));
        Path current = prefix(root, "env-current", Duration.ofDays(90)); // the caller's: never removed, counts as one kept
        Files.createSymbolicLink(root.resolve("a-link"), all.get(5)); // not a prefix: left alone, its target removed by name only

        List<Path> removed = EnvCache.prune(root, current, 3, Duration.ofDays(30));

        assertThat(removed).containsExactlyInAnyOrder(all.get(2), all.get(3), all.get(4), all.get(5), ancient);
        assertThat(root.resolve("env-0")).isDirectory();
        assertThat(root.resolve("env-1")).isDirectory();
        assertThat(current).isDirectory();
        assertThat(Files.isSymbolicLink(root.resolve("a-link"))).isTrue();
        try (var left = Files.list(root)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("env-0", "env-1", "env-current", "a-link");
        }
    }

    @Test
    void aPrefixAnotherProcessRunsInIsKept(@TempDir Path root) throws Exception {
        Path busy = prefix(root, "env-busy", Duration.ofDays(60));
        Path idle = prefix(root, "env-idle", Duration.ofDays(60));
        // another process marks the prefix in use the way an attempt does, and stays alive
        String java = ProcessHandle.current().info().command().orElse("java");
        Process other = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), InUse.class.getName(), busy.toString())
                .redirectErrorStream(true).start();
        try {
            assertThat(new String(other.getInputStream().readNBytes(6))).isEqualTo("using\n");
            List<Path> removed = EnvCache.prune(root, null, 1, Duration.ofDays(30));
            assertThat(removed).containsExactly(idle);
            assertThat(busy.resolve("venv/bin/python3")).exists();
        } finally {
            other.destroy();
            other.waitFor(10, TimeUnit.SECONDS);
        }
        // its use counts as use (kept under a 30-day bound); once that process is gone it can go like any other
        assertThat(EnvCache.prune(root, null, 1, Duration.ofDays(30))).isEmpty();
        assertThat(EnvCache.prune(root, null, 1, Duration.ZERO)).containsExactly(busy);
    }

    @Test
    void aPrefixThisProcessUsesIsKeptAndHalfRemovedOnesAreCleared(@TempDir Path root) throws IOException {
        Path mine = prefix(root, "env-mine", Duration.ofDays(60));
        EnvCache.using(mine);
        Path leftover = Files.createDirectories(root.resolve(".evicting-env-x-1f/venv"));
        assertThat(EnvCache.prune(root, null, 1, Duration.ofDays(1))).isEmpty();
        assertThat(mine).isDirectory();
        assertThat(leftover.getParent()).doesNotExist();
        assertThat(Files.getLastModifiedTime(mine.resolve(EnvCache.LAST_USE)).toInstant()).isAfter(Instant.now().minusSeconds(60));
    }

    /** Holds a prefix in use as an attempt in another process does: prints "using", then waits to be killed. */
    public static final class InUse {
        public static void main(String[] args) throws Exception {
            EnvCache.using(Path.of(args[0]));
            System.out.print("using\n");
            System.out.flush();
            Thread.sleep(120_000);
        }
    }
}
