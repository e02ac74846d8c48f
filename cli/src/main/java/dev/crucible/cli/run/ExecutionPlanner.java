package dev.crucible.cli.run;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.crucible.api.v1alpha1.environment.RLEnvironmentSpec;
import dev.crucible.cli.run.RunInputs.EnvironmentDoc;
import dev.crucible.verifier.toolchain.ExecEnvironment;
import dev.crucible.verifier.toolchain.ExecEnvironments;
import dev.crucible.files.BoundedRead;
import dev.crucible.files.FileRefusal;
import java.io.IOException;
import java.util.ArrayList;
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

    /** The largest dependency file read (a lock file of a big project is a few MiB). */
    static final long MAX_DEPENDENCY_FILE = 16L << 20;

    private ExecutionPlanner() {}

    /** Files at the workspace's root whose content decides what setup installs. */
    static final List<String> DEPENDENCY_FILES = List.of("requirements.txt", "requirements-dev.txt", "requirements-test.txt", "pyproject.toml",
            "setup.py", "setup.cfg", "poetry.lock", "uv.lock", "Pipfile.lock", "tox.ini", "go.mod", "go.sum", "Cargo.toml", "Cargo.lock",
            "package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "rust-toolchain", "rust-toolchain.toml", ".python-version");

    /**
     * spec.setup less its time limit: the limit decides how long setup may run, not what it installs, and a derive
     * retried with a longer --setup-timeout rebuilt the same setup in a new prefix.
     */
    static com.fasterxml.jackson.databind.JsonNode keyedSetup(RLEnvironmentSpec s) {
        if (s.setup == null) return com.fasterxml.jackson.databind.node.NullNode.getInstance();
        com.fasterxml.jackson.databind.node.ObjectNode n = SORTED.valueToTree(s.setup);
        n.remove("timeoutSeconds");
        return n;
    }

    static ExecEnvironment plan(EnvironmentDoc doc, Path workspace) throws IOException {
        RLEnvironmentSpec s = doc.spec();
        StringBuilder key = new StringBuilder();
        key.append(SORTED.writeValueAsString(keyedSetup(s))).append('\n').append(s.source == null ? "" : s.source.commit).append('\n');
        List<String> refused = new ArrayList<>();
        // the workspace is a derived repo's or a branch's: its files are read as hostile (a link out is not followed, a FIFO
        // or device never opened, a file over the bound never loaded whole): Files.readString read a linked host file into
        // the key, and a 2 GiB dependency file ended the CLI with an OutOfMemoryError
        Map<String, Object> read = BoundedRead.of(workspace, "workspace").readMany(DEPENDENCY_FILES, MAX_DEPENDENCY_FILE);
        for (String f : DEPENDENCY_FILES) {
            Object v = read.get(f);
            if (v instanceof byte[] b) {
                key.append(f).append('\0').append(new String(b, java.nio.charset.StandardCharsets.ISO_8859_1)).append('\0');
            } else if (v instanceof FileRefusal r) {
                key.append(f).append("\0refused ").append(r.kind()).append('\0'); // the kind, never the bytes
                refused.add(f + " is " + r.kind().words() + ": not read, setup does not see it as a dependency file");
            }
        }
        Map<String, String> toolchains = s.setup == null ? null : s.setup.toolchains;
        boolean hasScript = s.setup != null && s.setup.script != null && !s.setup.script.isBlank();
        boolean venv = hasScript || toolchains != null && toolchains.containsKey("python");
        ExecEnvironment e = ExecEnvironments.plan(doc.name(), key.toString(), toolchains, s.setup == null ? null : s.setup.env, venv);
        if (refused.isEmpty()) return e;
        List<String> warnings = new ArrayList<>(e.warnings());
        warnings.addAll(refused);
        return new ExecEnvironment(e.name(), e.key(), e.prefix(), e.venv(), e.path(), e.vars(), e.toolchains(), warnings, e.roots(), e.siteDirs(),
                e.pytestPlugins());
    }
}
