package dev.crucible.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Builds the pause image for real with images/build-base.sh (into a fresh cache) and reads the OCI
 * archive back as a runtime would; checks the archives images/build-all wrote when they are there.
 * The other base images need debootstrap and minutes each: images/build-all builds them.
 */
class ImageArchiveTest {

    @Test
    void pauseImageIsOneStaticBinaryAndRebuildsIdentically(@TempDir Path cache) throws Exception {
        String noStaticGcc = staticGccMissing();
        assumeTrue(noStaticGcc == null, noStaticGcc);
        Path archive = cache.resolve("images/pause.tar");

        Result first = buildBase(cache, "pause");
        assertThat(first.exit).as(first.output).isZero();
        assertThat(first.output.trim()).endsWith(archive.toString());
        OciArchive image = OciArchive.read(archive);
        assertThat(image.name()).isEqualTo(BuildImageNames.fromRootPom().reference("pause"));
        assertThat(image.entrypoint()).containsExactly("/pause");
        assertThat(image.config().path("config").path("User").asText()).isEqualTo("65535:65535");
        assertThat(image.layers()).hasSize(1);
        assertThat(image.layers().get(0).entries()).containsOnlyKeys("pause");
        TarArchiveEntry pause = image.find("pause");
        assertThat(pause.isFile()).isTrue();
        assertThat(pause.getMode() & 0111).isNotZero();
        byte[] binary = image.layers().get(0).smallFiles().get("pause");
        assertThat(new String(binary, 0, 4, StandardCharsets.ISO_8859_1)).isEqualTo("\u007fELF");
        assertThat(hasInterpreter(binary)).as("static: no PT_INTERP (dynamic loader) program header").isFalse();
        if (Files.isRegularFile(Path.of("/bin/sh"))) {
            assertThat(hasInterpreter(Files.readAllBytes(Path.of("/bin/sh").toRealPath()))).as("the check sees a dynamic one").isTrue();
        }
        Path extracted = Files.write(cache.resolve("pause-bin"), binary);
        Files.setPosixFilePermissions(extracted, PosixFilePermissions.fromString("rwx------"));
        Result version = run(List.of(extracted.toString(), "-v"), Map.of());
        assertThat(version.output).contains("crucible-pause 1");
        assertThat(Files.readString(cache.resolve("images/pause.inputs")).trim()).hasSize(64);

        // Idempotent: a second run only compares the inputs hash.
        long before = Files.getLastModifiedTime(archive).toMillis();
        Result second = buildBase(cache, "pause");
        assertThat(second.output).contains("pause: up to date");
        assertThat(Files.getLastModifiedTime(archive).toMillis()).isEqualTo(before);

        // Reproducible: rebuilt from scratch, the same manifest digest.
        String digest = OciArchive.read(archive).manifest().toString();
        Files.delete(cache.resolve("images/pause.inputs"));
        assertThat(buildBase(cache, "pause").exit).isZero();
        assertThat(OciArchive.read(archive).manifest().toString()).isEqualTo(digest);
    }

    @Test
    void corruptedBlobIsRefused(@TempDir Path dir) throws Exception {
        String noStaticGcc = staticGccMissing();
        assumeTrue(noStaticGcc == null, noStaticGcc);
        assertThat(buildBase(dir, "pause").exit).isZero();
        Path archive = dir.resolve("images/pause.tar");
        byte[] bytes = Files.readAllBytes(archive);
        // Flip one byte in the middle of the layer blob (the bulk of the archive).
        bytes[bytes.length / 2] ^= 0x5a;
        Path bad = Files.write(dir.resolve("bad.tar"), bytes);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> OciArchive.read(bad))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("bad.tar");
    }

    /** What images/build-all wrote (target/images, the cache's base images), read back and checked. */
    @Test
    void builtArchivesReadBackWithTheirEntrypoints() throws Exception {
        Path out = BuildImageNames.repoRoot().resolve("target/images");
        assumeTrue(Files.isDirectory(out), "no target/images: run images/build-all to build and check every image");
        BuildImageNames names = BuildImageNames.fromRootPom();
        Map<String, String> expected = Map.of(
                "operator.tar", "deployments/quarkus-run.jar",
                "sidecar-verifier.tar", "usr/bin/bwrap",
                "snapshot-agent.tar", "usr/local/bin/criu",
                "probe-server.tar", "app/classes/dev/crucible/probe/ProbeServerMain.class",
                "console.tar", "app/classes/dev/crucible/console/cluster/ClusterConsoleMain.class",
                "example-python-calc.tar", "workspace/calc/ops.py");
        List<Path> archives;
        try (Stream<Path> s = Files.list(out)) {
            archives = s.filter(p -> p.toString().endsWith(".tar")).sorted().toList();
        }
        assertThat(archives).isNotEmpty();
        for (Path tar : archives) {
            OciArchive image = OciArchive.read(tar);
            String file = tar.getFileName().toString();
            System.out.printf("%-28s %-48s %6.1f MB in %d layers%n", file, image.name(), image.compressedSize() / 1e6, image.layers().size());
            if (expected.containsKey(file)) {
                assertThat(image.find(expected.get(file))).as(expected.get(file) + " in " + file).isNotNull();
            }
            if (file.equals("operator.tar")) {
                // The AppCDS archive (images/operator-appcds.sh) is there and named by the entrypoint, and
                // the jars keep the mtime it was made with: the JVM ignores an archive whose jars changed.
                assertThat(image.find("deployments/app-cds.jsa")).as("AppCDS archive in operator.tar").isNotNull();
                assertThat(image.entrypoint()).contains("-XX:SharedArchiveFile=/deployments/app-cds.jsa");
                for (String jar : List.of("deployments/quarkus-run.jar")) {
                    assertThat(image.find(jar).getModTime().getTime()).as("mtime of " + jar).isEqualTo(1000L);
                }
            }
            if (!file.startsWith("example-")) {
                assertThat(image.entrypoint()).as("entrypoint of " + file).isNotEmpty().first().isEqualTo("java");
                assertThat(image.find("usr/lib/jvm/java-17-openjdk-amd64/bin/java")).as("JRE in " + file).isNotNull();
                String short_ = file.replace(".tar", "");
                assertThat(image.name()).endsWith(names.reference(short_));
            } else {
                assertThat(image.name()).isEqualTo(names.reference("example-python"));
                assertThat(image.find("usr/bin/python3")).isNotNull();
            }
        }
    }

    /** Whether an ELF64 little-endian binary names a dynamic loader (a PT_INTERP program header). */
    private static boolean hasInterpreter(byte[] elf) {
        var buf = java.nio.ByteBuffer.wrap(elf).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long phoff = buf.getLong(32);
        int phentsize = Short.toUnsignedInt(buf.getShort(54));
        int phnum = Short.toUnsignedInt(buf.getShort(56));
        for (int i = 0; i < phnum; i++) {
            if (buf.getInt((int) phoff + i * phentsize) == 3) {
                return true;
            }
        }
        return false;
    }

    private static String staticGccMissing() throws Exception {
        try {
            Path dir = Files.createTempDirectory("static-gcc");
            Path src = Files.writeString(dir.resolve("t.c"), "int main(void) { return 0; }\n");
            Result r = run(List.of("gcc", "-static", "-o", dir.resolve("t").toString(), src.toString()), Map.of());
            return r.exit == 0 ? null : "gcc -static fails (static glibc, libc6-dev, needed for the pause image): " + r.output;
        } catch (IOException e) {
            return "gcc not found: the pause image is built with gcc -static";
        }
    }

    private static Result buildBase(Path cache, String name) throws Exception {
        Path script = BuildImageNames.repoRoot().resolve("images/build-base.sh");
        return run(List.of(script.toString(), name), Map.of("CRUCIBLE_CACHE", cache.toString()));
    }

    private record Result(int exit, String output) {
    }

    private static Result run(List<String> cmd, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("finished: " + cmd).isTrue();
        return new Result(p.exitValue(), out);
    }
}
