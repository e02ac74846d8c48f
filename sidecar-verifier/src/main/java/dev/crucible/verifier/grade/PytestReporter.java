package dev.crucible.verifier.grade;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes the grader's pytest reporter (the {@code crucible_reporter.py} resource) and its
 * configuration (grading root, grader files) into a support directory, fresh before each run.
 * The support directory is read-only inside the grading sandbox.
 */
public final class PytestReporter {
    public static final String MODULE = "crucible_reporter";
    /** Environment variable carrying the channel nonce; the reporter removes it at import. */
    public static final String NONCE_VAR = "CRUCIBLE_REPORT_NONCE";
    private static final byte[] SOURCE = load();

    private PytestReporter() {}

    public static void install(Path supportDir, Path root, Map<String, GraderFiles.Entry> graderFiles) {
        Map<String, Object> cfg = new LinkedHashMap<>();
        cfg.put("root", root.toAbsolutePath().normalize().toString());
        Map<String, Object> files = new LinkedHashMap<>();
        graderFiles.forEach((rel, e) -> files.put(rel, Map.of("sha256", e.sha256(), "test", e.test())));
        cfg.put("files", files);
        try {
            Files.createDirectories(supportDir);
            Files.write(supportDir.resolve(MODULE + ".py"), SOURCE);
            Files.write(supportDir.resolve(MODULE + ".json"), new ObjectMapper().writeValueAsBytes(cfg));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static byte[] load() {
        try (InputStream in = PytestReporter.class.getResourceAsStream(MODULE + ".py")) {
            if (in == null) throw new IllegalStateException("resource " + MODULE + ".py missing from the sidecar-verifier jar");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
