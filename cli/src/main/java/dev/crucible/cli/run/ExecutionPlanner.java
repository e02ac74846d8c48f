package dev.crucible.cli.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.cli.run.RunInputs.EnvironmentDoc;
import dev.crucible.verifier.toolchain.ExecEnvironment;
import dev.crucible.verifier.toolchain.ExecEnvironments;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The execution environment of an RLEnvironment run on this machine, keyed by what decides what
 * setup installs: the environment's name, spec.setup, the source commit and the workspace's
 * dependency files (requirements, pyproject, go.mod, Cargo.lock, package.json…). Every attempt of
 * the same environment reuses one prefix; a changed setup or dependency file gets a new one.
 */
final class ExecutionPlanner {
    private static final ObjectMapper SORTED = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private ExecutionPlanner() {}

    /** Files at the workspace's root whose content decides what setup installs. */
    static final List<String> DEPENDENCY_FILES = List.of("requirements.txt", "requirements-dev.txt", "requirements-test.txt", "pyproject.toml",
            "setup.py", "setup.cfg", "poetry.lock", "uv.lock", "Pipfile.lock", "tox.ini", "go.mod", "go.sum", "Cargo.toml", "Cargo.lock",
            "package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "rust-toolchain", "rust-toolchain.toml", ".python-version");

    static ExecEnvironment plan(EnvironmentDoc doc, Path workspace) throws IOException {
        RLEnvironmentSpec s = doc.spec();
        StringBuilder key = new StringBuilder();
        key.append(SORTED.writeValueAsString(s.setup)).append('\n').append(s.source == null ? "" : s.source.commit).append('\n');
        for (String f : DEPENDENCY_FILES) {
            Path p = workspace.resolve(f);
            if (Files.isRegularFile(p)) key.append(f).append('\0').append(Files.readString(p, java.nio.charset.StandardCharsets.ISO_8859_1)).append('\0');
        }
        Map<String, String> toolchains = s.setup == null ? null : s.setup.toolchains;
        boolean hasScript = s.setup != null && s.setup.script != null && !s.setup.script.isBlank();
        boolean venv = hasScript || toolchains != null && toolchains.containsKey("python");
        return ExecEnvironments.plan(doc.name(), key.toString(), toolchains, s.setup == null ? null : s.setup.env, venv);
    }
}
