package dev.crucible.cli.imports;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * SWE-bench's install steps for one instance, read from the {@code swebench} package's
 * {@code MAP_REPO_VERSION_TO_SPECS[repo][version]} by a small Python step ({@code swebench_specs.py}, run with the
 * interpreter the user names) at import time: Java cannot read a Python dict, and the package is the one definition.
 * The 4.x releases have the map; 5.x dropped it, and then (or with no entry for the repo and version, or no swebench
 * at all) the import derives setup from CI instead, saying why.
 */
final class SweBenchSpecs {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final long TIMEOUT_S = 60;

    /** The spec found ({@code spec} null: none, {@code reason} says why), by swebench {@code release}. */
    record Lookup(String release, JsonNode spec, List<String> reqsPaths, String reason, String repo, String version) {
        static Lookup none(String reason) {
            return new Lookup(null, null, List.of(), reason, null, null);
        }

        boolean found() {
            return spec != null;
        }

        String source() {
            return "swebench " + release + " MAP_REPO_VERSION_TO_SPECS[\"" + repo + "\"][\"" + version + "\"]";
        }
    }

    private SweBenchSpecs() {
    }

    /**
     * Runs the Python step with {@code python}; a Python that cannot be started is a reason (derive then), except one
     * the user named with --python ({@code named}), which is refused.
     */
    static Lookup lookup(String python, boolean named, String repo, String version) throws IOException, HarborTask.InvalidTask {
        return lookup(python, named, repo, version, TIMEOUT_S);
    }

    static Lookup lookup(String python, boolean named, String repo, String version, long timeoutS)
            throws IOException, HarborTask.InvalidTask {
        if (version == null) return Lookup.none("the instance has no version, so no specification applies");
        Path dir = Files.createTempDirectory("crucible-swebench-specs-");
        try {
            Path script = dir.resolve("swebench_specs.py");
            try (InputStream in = SweBenchSpecs.class.getResourceAsStream("swebench_specs.py")) {
                Files.copy(in, script);
            }
            Path err = dir.resolve("err");
            Path outFile = dir.resolve("out");  // to files, not pipes: a Python that hangs cannot hold a read past the bound
            ProcessBuilder pb = new ProcessBuilder(python, script.toString(), repo, version).directory(dir.toFile())
                    .redirectOutput(outFile.toFile()).redirectError(err.toFile());
            Process p;
            try {
                p = pb.start();
            } catch (IOException e) {
                if (named) throw new HarborTask.InvalidTask("--python " + python + ": cannot be run: " + e.getMessage());
                return Lookup.none(python + " cannot be run (" + e.getMessage() + ")");
            }
            if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Lookup.none(python + " did not answer within " + timeoutS + " s");
            }
            JsonNode r;
            try (InputStream in = Files.newInputStream(outFile)) {
                r = JSON.readTree(new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8));
            } catch (IOException e) {
                r = null;
            }
            if (p.exitValue() != 0 || r == null || !r.isObject()) {
                String why = Files.readString(err).strip();
                return Lookup.none(python + " could not read the specifications (exit " + p.exitValue() + "): "
                        + why.lines().reduce((a, b) -> b).orElse("no output"));
            }
            JsonNode spec = r.get("spec");
            List<String> reqs = new ArrayList<>();
            r.path("reqsPaths").forEach(x -> reqs.add(x.asText()));
            return new Lookup(r.path("swebench").asText(null), spec != null && spec.isObject() ? spec : null, List.copyOf(reqs),
                    r.path("reason").asText(""), repo, version);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            dev.crucible.verifier.pristine.TreeCopy.delete(dir);
        }
    }

    /**
     * The setup script SWE-bench's harness would run for this spec, in its order: {@code packages} (the repository's
     * requirements file, or the packages named), {@code pip_packages}, {@code install}. Its {@code pre_install} and
     * {@code eval_commands} run as root in SWE-bench's Docker image; here they would run on the user's host, so they are
     * only listed in {@code notes}. A {@code pip install .} becomes editable: setup runs once before the agent, so a
     * copy installed then would be what the tests import, and the agent's fix would never be graded.
     */
    static String setupScript(Lookup l, Path repo, String commit, List<String> notes) throws IOException {
        JsonNode s = l.spec();
        List<String> lines = new ArrayList<>();
        lines.add("# SWE-bench's install steps: " + l.source());
        String packages = s.path("packages").asText("").strip();
        if (packages.equals("requirements.txt")) {
            String path = null;
            for (String p : l.reqsPaths()) {
                if (SweBenchFolder.Git.run(repo, null, "cat-file", "-e", commit + ":" + p).exit() == 0) {
                    path = p;
                    break;
                }
            }
            if (path != null) lines.add("python -m pip install -r " + quote(path));
            else notes.add("the spec's requirements file (" + String.join(", ", l.reqsPaths()) + ") is not at base_commit: skipped");
        } else if (packages.equals("environment.yml")) {
            notes.add("the spec installs a conda environment.yml: not supported here, skipped");
        } else if (!packages.isEmpty()) {
            lines.add("python -m pip install " + String.join(" ", List.of(packages.split("\\s+")).stream().map(SweBenchSpecs::quote).toList()));
        }
        List<String> pins = new ArrayList<>();
        s.path("pip_packages").forEach(x -> pins.add(quote(x.asText())));
        if (!pins.isEmpty()) lines.add("python -m pip install " + String.join(" ", pins));
        String install = s.path("install").asText("").strip();
        if (install.matches("(python[0-9.]* -m )?pip install \\.")) {
            notes.add("the spec's `" + install + "` is run editable (`python -m pip install -e .`): a copy installed at setup would be "
                    + "what the tests import, not the agent's workspace");
            install = "python -m pip install -e .";
        }
        if (!install.isEmpty()) lines.add(install);
        lines.add("python -c 'import pytest' 2>/dev/null || python -m pip install pytest  # the verifier runs pytest");
        for (String key : List.of("pre_install", "eval_commands")) {
            List<String> cmds = new ArrayList<>();
            s.path(key).forEach(x -> cmds.add(x.asText()));
            if (!cmds.isEmpty()) {
                notes.add("the spec's " + key + " (run as root in SWE-bench's Docker image) is not run here: " + String.join("; ", cmds));
            }
        }
        return String.join("\n", lines);
    }

    /** The pytest command the spec's test_cmd gives ({@code python -m pytest ...}), or null when it is not pytest's. */
    static String pytestCommand(Lookup l) {
        String cmd = l.spec().path("test_cmd").asText("").strip();
        if (!cmd.matches("pytest(\\s.*)?")) return null;
        return "python -m " + cmd + (cmd.contains("no:cacheprovider") ? "" : " -p no:cacheprovider");
    }

    private static String quote(String s) {
        return s.matches("[A-Za-z0-9_.,:/=+@-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }
}
