package dev.crucible.derive;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Derives from the workflow files under src/test/resources/derive/, as if each were
 * .github/workflows/NAME in a repository whose version files (go.mod, .nvmrc, .python-version) the
 * setup actions can read.
 */
final class WorkflowFixtures {
    private WorkflowFixtures() {
    }

    static String text(String resource) {
        try (InputStream in = WorkflowFixtures.class.getResourceAsStream("/derive/" + resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource derive/" + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A repository directory holding the version files and the local action the fixtures' steps name. */
    static Path repository(Path dir) {
        try {
            Files.writeString(dir.resolve("go.mod"), "module example.com/service\n\ngo 1.22.0\n\ntoolchain go1.22.5\n");
            Files.createDirectories(dir.resolve("services/api"));
            Files.writeString(dir.resolve("services/api/.python-version"), "3.11\n");
            Files.createDirectories(dir.resolve("web"));
            Files.writeString(dir.resolve("web/.nvmrc"), "v20.11.1\n");
            Path action = Files.createDirectories(dir.resolve(".github/actions/setup-project"));
            Files.writeString(action.resolve("action.yml"), text("composite/action.yml"));
            Files.writeString(action.resolve("marker.txt"), text("composite/marker.txt"));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Derivation derive(Path repo, String resource, String job, Map<String, String> matrix, String testStep)
            throws DerivationException {
        DerivationRequest request = new DerivationRequest(repo, null, ".github/workflows/" + resource, job, matrix,
                testStep);
        return new WorkflowDeriver().deriveFromText(request, text(resource));
    }

    static Derivation derive(Path repo, String resource) throws DerivationException {
        return derive(repo, resource, null, Map.of(), null);
    }

    /** Derives from {@code text} as the workflow at {@code workflowPath} of {@code repo}, for {@code job} (null: chosen). */
    static Derivation fromText(Path repo, String workflowPath, String job, Map<String, String> matrix, String text)
            throws DerivationException {
        return new WorkflowDeriver().deriveFromText(new DerivationRequest(repo, null, workflowPath, job, matrix, null), text);
    }

    /** The same with the job chosen and no matrix. */
    static Derivation fromText(Path repo, String workflowPath, String text) throws DerivationException {
        return fromText(repo, workflowPath, null, Map.of(), text);
    }

    /** Writes {@code text} to {@code rel} under {@code repo}, making its folders. */
    static Path write(Path repo, String rel, String text) {
        try {
            Path f = repo.resolve(rel);
            Files.createDirectories(f.getParent());
            return Files.writeString(f, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static StepReport step(Derivation d, int number) {
        return d.steps().get(number - 1);
    }
}
