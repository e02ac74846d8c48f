package dev.crucible.verifier;

import dev.crucible.verifier.pristine.TreeCopy;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.crucible.verifier.config.ConfigException;
import dev.crucible.verifier.config.EnvironmentSpec;
import dev.crucible.verifier.config.HiddenTests;
import dev.crucible.verifier.config.ManifestReader;
import dev.crucible.verifier.config.VerifierSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A loaded RLEnvironment: its spec plus the directory its relative paths (workspace, hidden tests)
 * are resolved against, which is the manifest's directory.
 */
public final class Environment {
    private final EnvironmentSpec spec;
    private final Path baseDir;
    private final Path manifest;
    private final String name;
    private final Path hiddenDir;   // the hidden tests grading uses: spec.verifier.hiddenTests resolved, or a private copy
    private final Path hiddenPatch;
    private final dev.crucible.verifier.toolchain.ExecEnvironment execution; // null: commands get CommandEnvironments' defaults

    private Environment(EnvironmentSpec spec, Path baseDir, Path manifest, String name) {
        this.spec = spec;
        this.baseDir = baseDir.toAbsolutePath().normalize();
        this.manifest = manifest;
        this.name = name;
        HiddenTests h = spec.verifier().hiddenTests();
        this.hiddenDir = h == null || h.path() == null ? null : this.baseDir.resolve(h.path()).normalize();
        this.hiddenPatch = h == null || h.patch() == null ? null : this.baseDir.resolve(h.patch()).normalize();
        this.execution = null;
        checkHidden();
    }

    private Environment(Environment e, Path hiddenDir, Path hiddenPatch, dev.crucible.verifier.toolchain.ExecEnvironment execution) {
        this.spec = e.spec;
        this.baseDir = e.baseDir;
        this.manifest = e.manifest;
        this.name = e.name;
        this.hiddenDir = hiddenDir;
        this.hiddenPatch = hiddenPatch;
        this.execution = execution;
    }

    /** This environment with its execution environment (provisioned by the local runtime before reset). */
    public Environment withExecution(dev.crucible.verifier.toolchain.ExecEnvironment e) {
        return new Environment(this, hiddenDir, hiddenPatch, e);
    }

    /** The one execution environment setup, agent and grading share, when it was provisioned. */
    public Optional<dev.crucible.verifier.toolchain.ExecEnvironment> execution() { return Optional.ofNullable(execution); }

    /**
     * This environment with its hidden tests copied into {@code privateDir} (created 0700): grading and
     * the monitor then use that copy, so parallel attempts share no hidden file (one attempt's grading
     * reading them can never be blamed on another's agent) and nothing of them is left behind when the
     * attempt's state folder is deleted. Without hidden tests it returns this environment.
     */
    public Environment withPrivateHiddenTests(Path privateDir) throws IOException {
        if (hiddenDir == null && hiddenPatch == null) return this;
        Files.createDirectories(privateDir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        Path dir = null;
        Path patch = null;
        if (hiddenDir != null) {
            dir = privateDir.resolve("tests");
            TreeCopy.copy(hiddenDir, dir);
        }
        if (hiddenPatch != null) {
            patch = privateDir.resolve("tests.patch");
            Files.copy(hiddenPatch, patch, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        }
        return new Environment(this, dir, patch, execution);
    }

    /** Reads and validates a manifest; {@link ConfigException} names the file and field on bad input. */
    public static Environment load(Path manifest) {
        Path abs = manifest.toAbsolutePath().normalize();
        if (!Files.isRegularFile(abs)) throw new ConfigException(manifest + ": no such file");
        EnvironmentSpec spec = ManifestReader.read(abs);
        return new Environment(spec, abs.getParent(), abs, metadataName(abs));
    }

    /** An environment built in code (tests, the local runtime); paths resolve against {@code baseDir}. */
    public static Environment of(EnvironmentSpec spec, Path baseDir, String name) {
        return new Environment(spec, baseDir, null, name);
    }

    public EnvironmentSpec spec() { return spec; }

    public VerifierSpec verifier() { return spec.verifier(); }

    public Path baseDir() { return baseDir; }

    /** The manifest file, or empty for environments built in code. */
    public Optional<Path> manifest() { return Optional.ofNullable(manifest); }

    public String name() { return name; }

    /** {@code spec.workspace.path} resolved against the manifest's directory. */
    public Optional<Path> workspacePath() {
        return spec.workspace() == null || spec.workspace().path() == null ? Optional.empty()
                : Optional.of(baseDir.resolve(spec.workspace().path()).normalize());
    }

    /** The hidden tests folder grading copies in: {@code spec.verifier.hiddenTests.path}, or its private copy. */
    public Optional<Path> hiddenTestsDir() { return Optional.ofNullable(hiddenDir); }

    /** The hidden tests patch grading applies: {@code spec.verifier.hiddenTests.patch}, or its private copy. */
    public Optional<Path> hiddenTestsPatch() { return Optional.ofNullable(hiddenPatch); }

    private void checkHidden() {
        String src = manifest == null ? name : manifest.toString();
        hiddenTestsDir().ifPresent(d -> {
            if (!Files.isDirectory(d)) throw new ConfigException(src + ": spec.verifier.hiddenTests.path: no such directory " + d);
        });
        hiddenTestsPatch().ifPresent(p -> {
            if (!Files.isRegularFile(p)) throw new ConfigException(src + ": spec.verifier.hiddenTests.patch: no such file " + p);
        });
    }

    private static String metadataName(Path manifest) {
        try {
            JsonNode n = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(manifest));
            String s = n == null ? "" : n.path("metadata").path("name").asText("");
            return s.isEmpty() ? manifest.getFileName().toString() : s;
        } catch (IOException e) {
            return manifest.getFileName().toString();
        }
    }
}
