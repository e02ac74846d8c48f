package dev.crucible.derive;

import java.nio.file.Path;
import java.util.Map;

/**
 * What to derive from.
 *
 * @param repo             the repository's working directory
 * @param commit           commit to read the workflow (and version files) at; null reads the working tree
 * @param workflowPath     path of the workflow file inside the repository, e.g. .github/workflows/ci.yml
 * @param job              job id or name; null picks the first job that runs tests
 * @param matrix           wanted matrix values (key → value); empty picks the first Linux combination
 * @param testStepOverride step name, id or number (comma-separated for several) that runs the tests; null detects
 */
public record DerivationRequest(Path repo, String commit, String workflowPath, String job, Map<String, String> matrix,
        String testStepOverride) {
    public DerivationRequest {
        matrix = matrix == null ? Map.of() : Map.copyOf(matrix);
    }
}
