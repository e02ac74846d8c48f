package dev.crucible.verifier;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.verifier.exec.ExecRequest;
import dev.crucible.verifier.exec.ExecResult;
import dev.crucible.verifier.exec.Executor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The interpreter as it was at reset, before the agent could touch anything: its real executable
 * (grading uses this path, so a python3 planted earlier on PATH is never run), its site directories
 * (watched for .pth hooks) and its standard-library module names (for shadowing).
 */
public record PythonInfo(String executable, List<Path> siteDirs, Set<String> stdlib) {
    static final PythonInfo NONE = new PythonInfo(null, List.of(), Set.of());
    private static final String PROBE = "import sys, site, json; print(json.dumps({'exe': sys.executable, "
            + "'site': list(site.getsitepackages()) + [site.getusersitepackages()], "
            + "'stdlib': sorted(getattr(sys, 'stdlib_module_names', []))}))";

    static PythonInfo probe(Executor ex, String python, Path cwd, Map<String, String> env) {
        ExecResult r = ex.run(new ExecRequest(List.of(python, "-I", "-c", PROBE), cwd, env, true, Duration.ofSeconds(30), 1 << 20, null, false));
        if (!r.ok()) return NONE;
        try {
            JsonNode n = new ObjectMapper().readTree(r.stdout());
            List<Path> sites = new ArrayList<>();
            n.path("site").forEach(s -> sites.add(Path.of(s.asText())));
            Set<String> std = new HashSet<>();
            n.path("stdlib").forEach(s -> std.add(s.asText()));
            return new PythonInfo(n.path("exe").asText(), sites, std);
        } catch (java.io.IOException e) {
            return NONE;
        }
    }
}
