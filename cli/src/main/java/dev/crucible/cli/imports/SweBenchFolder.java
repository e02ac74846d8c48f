package dev.crucible.cli.imports;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.cli.derive.FixVerifier;
import dev.crucible.contract.RewardMode;
import dev.crucible.derive.Derivation;
import dev.crucible.derive.DerivationException;
import dev.crucible.derive.FixCommit;
import dev.crucible.derive.WorkflowFinder;
import dev.crucible.verifier.pristine.TreeCopy;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Writes the RLEnvironment folder of an imported SWE-bench instance: {@code environment.yaml} (the workspace is
 * {@code spec.source}: the local repository at base_commit; setup from swebench's specification for the repo and version
 * ({@link SweBenchSpecs}), else from {@code crucible derive} at that commit, else a pip install of the package and pytest), {@code hidden-tests/} (the files of test_patch as
 * it leaves them, copied over the workspace only when grading), {@code reference.patch} (the gold patch, never in
 * the workspace). The verifier runs pytest on the test patch's files, graded per test on FAIL_TO_PASS and
 * PASS_TO_PASS, binary as SWE-bench's "resolved".
 */
final class SweBenchFolder {
    static final String MANIFEST = "environment.yaml";
    static final String HIDDEN = "hidden-tests";
    static final String REFERENCE = "reference.patch";

    private SweBenchFolder() {
    }

    /** Writes the folder (replacing one `crucible import` wrote); returns notes for the user. */
    static List<String> write(SweBenchInstance inst, Path repo, String job, SweBenchSpecs.Lookup specs, Path out) throws IOException, HarborTask.InvalidTask {
        if (!Files.isDirectory(repo)) throw new HarborTask.InvalidTask(repo + ": not a folder (--repo: a git clone of " + inst.repo() + ")");
        Git.Result rev = Git.run(repo, null, "rev-parse", "--verify", "--quiet", inst.baseCommit() + "^{commit}");
        if (rev.exit() != 0) {
            throw new HarborTask.InvalidTask(inst.file() + ": base_commit: " + inst.baseCommit() + " is not a commit of " + repo
                    + " (--repo must be a clone of " + inst.repo() + " holding it)");
        }
        String commit = rev.out().strip();
        if (Files.exists(out, LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> s = Files.list(out)) {
                if (!Files.exists(out.resolve(HarborFolder.MARKER)) && s.findAny().isPresent()) {
                    throw new HarborTask.InvalidTask(out + ": exists and is not a folder `crucible import` wrote; choose another --out");
                }
            }
        }
        List<String> notes = new ArrayList<>();
        Path scratch = Files.createTempDirectory("crucible-swebench-");
        Path tmp = Files.createDirectories(out.toAbsolutePath().getParent()).resolve(out.getFileName() + ".importing");
        try {
            Map<String, byte[]> hidden = applied(inst, repo, commit, inst.testPatch(), "test_patch", scratch.resolve("tests"));
            if (inst.patch() != null) applied(inst, repo, commit, inst.patch(), "patch", scratch.resolve("gold"));
            if (Files.exists(tmp, LinkOption.NOFOLLOW_LINKS)) TreeCopy.delete(tmp);
            Files.createDirectories(tmp.resolve(HIDDEN));
            for (Map.Entry<String, byte[]> e : hidden.entrySet()) {
                if (e.getValue() == null) {
                    notes.add("test_patch deletes " + e.getKey() + ": it stays in the workspace");
                    continue;
                }
                Path target = tmp.resolve(HIDDEN).resolve(e.getKey());
                Files.createDirectories(target.getParent());
                Files.write(target, e.getValue());
            }
            if (inst.patch() != null) Files.writeString(tmp.resolve(REFERENCE), inst.patch());
            ObjectNode manifest = manifest(inst, repo, commit, job, specs, hidden.keySet(), notes);
            new YAMLMapper().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                    .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE).writeValue(tmp.resolve(MANIFEST).toFile(), manifest);
            Files.writeString(tmp.resolve(HarborFolder.MARKER), "swebench " + inst.file().toAbsolutePath().normalize() + "\n");
            if (Files.exists(out, LinkOption.NOFOLLOW_LINKS)) TreeCopy.delete(out);
            Files.move(tmp, out);
        } catch (IOException | HarborTask.InvalidTask | RuntimeException e) {
            TreeCopy.delete(tmp);  // nothing half-written where the user asked for the folder
            throw e;
        } finally {
            TreeCopy.delete(scratch);
        }
        return notes;
    }

    /**
     * The files {@code patch} touches, as it leaves them (null: deleted), after applying it with {@code git apply} to
     * their base_commit versions in {@code tree} (a scratch folder outside any repository).
     */
    private static Map<String, byte[]> applied(SweBenchInstance inst, Path repo, String commit, String patch, String field, Path tree)
            throws IOException, HarborTask.InvalidTask {
        Files.createDirectories(tree);
        List<String> files = SweBenchInstance.files(patch);
        for (String f : files) {
            Git.Result show = Git.run(repo, null, "cat-file", "blob", commit + ":" + f);
            if (show.exit() == 0) {
                Path p = tree.resolve(f);
                Files.createDirectories(p.getParent());
                Files.write(p, show.bytes());
            }
        }
        Path diff = tree.resolveSibling(tree.getFileName() + ".diff");
        Files.writeString(diff, patch);
        Git.Result r = Git.run(tree, tree.getParent(), "apply", "--whitespace=nowarn", diff.toString());
        if (r.exit() != 0) {
            throw new HarborTask.InvalidTask(inst.file() + ": " + field + ": does not apply at base_commit " + FixCommit.shortId(commit) + ": "
                    + r.err().strip().lines().findFirst().orElse("git apply failed"));
        }
        Map<String, byte[]> out = new java.util.LinkedHashMap<>();
        for (String f : files) {
            Path p = tree.resolve(f);
            out.put(f, Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS) ? Files.readAllBytes(p) : null);
        }
        return out;
    }

    static ObjectNode manifest(SweBenchInstance inst, Path repo, String commit, String job, SweBenchSpecs.Lookup specs,
            Set<String> testFiles, List<String> notes) throws HarborTask.InvalidTask, IOException {
        ObjectNode root;
        boolean derived = false;
        if (specs.found()) {
            root = fallback(repo, commit);
            ObjectNode s = (ObjectNode) root.at("/spec/setup");
            s.put("script", SweBenchSpecs.setupScript(specs, repo, commit, notes));
            String python = specs.spec().path("python").asText("");
            if (!python.isBlank()) ((ObjectNode) s.get("toolchains")).put("python", python);
            notes.add(0, "setup from " + specs.source() + (python.isBlank() ? "" : " (Python " + python + ")"));
        } else try {
            notes.add("no swebench specification: " + specs.reason());
            Derivation d = WorkflowFinder.derive(repo, commit, job);
            if (job != null && !job.equals(d.jobId())) {  // the finder takes a job it cannot find as no preference
                throw new HarborTask.InvalidTask("--job " + job + ": crucible derive at base_commit: no such job (the testing job is '"
                        + d.jobId() + "' in " + d.workflowPath() + ")");
            }
            root = d.manifest();
            derived = true;
            notes.add("setup from crucible derive at base_commit: " + d.summary());
        } catch (DerivationException | RuntimeException e) {
            if (job != null) throw new HarborTask.InvalidTask("--job " + job + ": crucible derive at base_commit: " + e.getMessage());
            root = fallback(repo, commit);
            derived = false;
            notes.add("crucible derive found no test job at base_commit (" + e.getMessage().lines().findFirst().orElse("")
                    + "): setup installs the package and pytest into the environment's Python");
        }
        ObjectNode metadata = (ObjectNode) root.get("metadata");
        metadata.put("name", inst.name());
        object(metadata, "labels").removeAll().put("crucible.dev/imported-from", "swebench");
        ObjectNode ann = object(metadata, "annotations");
        ann.put("crucible.dev/swebench-instance", inst.instanceId());
        ann.put("crucible.dev/swebench-repo", inst.repo());
        if (inst.patch() != null) ann.put("crucible.dev/reference-solution", REFERENCE);
        ObjectNode spec = (ObjectNode) root.get("spec");
        spec.remove("workspace");  // the workspace is the repository at base_commit (spec.source)
        spec.remove("additionalVerifiers");
        ObjectNode source = object(spec, "source");
        source.put("repo", repo.toAbsolutePath().normalize().toString()).put("commit", commit);
        ObjectNode setup = object(spec, "setup");
        String framework = root.at("/spec/verifier/framework").asText("");
        if (derived && !framework.equals("pytest")) {
            // the verifier runs pytest directly where CI ran it through tox/nox/make: pytest and the package must import
            setup.put("script", setup.path("script").asText("") + "\n\n" + pytestSetup(repo, commit, setup.path("toolchains").has("uv")));
        }
        ((ObjectNode) object(spec, "task")).put("prompt", inst.problemStatement().strip() + "\n");
        String pytest = specs.found() ? SweBenchSpecs.pytestCommand(specs) : null;
        if (specs.found() && pytest == null) {
            notes.add("the spec's test_cmd (" + specs.spec().path("test_cmd").asText() + ") is not pytest: grading runs pytest on the listed tests");
        }
        int timeout = root.at("/spec/verifier/timeoutSeconds").asInt(1800);
        List<String> globs = new ArrayList<>();
        root.at("/spec/verifier/protectedPaths").forEach(g -> globs.add(g.asText()));
        ObjectNode v = spec.putObject("verifier");
        v.put("type", "test-suite").put("framework", "pytest").put("command", command(pytest == null ? PYTEST : pytest, inst, testFiles));
        array(v, "failToPass", inst.failToPass());
        array(v, "passToPass", inst.passToPass());
        v.put("rewardMode", RewardMode.BINARY.wire()).put("timeoutSeconds", timeout);
        for (String g : List.of("conftest.py", "pytest.ini")) if (!globs.contains(g)) globs.add(g);
        for (String t : testFiles) if (!globs.contains(t)) globs.add(t);
        array(v, "protectedPaths", globs);
        v.putObject("hiddenTests").put("path", HIDDEN);
        if (!spec.has("hackPolicy")) spec.putObject("hackPolicy").put("action", "flag");
        return root;
    }

    /**
     * How pytest and the package get into the environment: a uv project with a lock (and uv among the toolchains) syncs
     * it, with its test dependency group, so pytest is the version the lock pins (flask's conftest at fb54159 needs
     * pytest 8: pytest 9 has no monkeypatch.notset); else {@link FixVerifier#PYTHON_SETUP} (pip: pytest, the package).
     */
    static String pytestSetup(Path repo, String commit, boolean uv) throws HarborTask.InvalidTask {
        try {
            if (uv && Git.run(repo, null, "cat-file", "-e", commit + ":uv.lock").exit() == 0) {
                Git.Result toml = Git.run(repo, null, "cat-file", "blob", commit + ":pyproject.toml");
                String group = toml.exit() == 0 ? testGroup(toml.out()) : null;
                return "# SWE-bench import: the verifier runs pytest directly; the locked test environment\n"
                        + "uv sync --locked" + (group == null ? "" : " --group " + group);
            }
        } catch (IOException e) {
            throw new HarborTask.InvalidTask(repo + ": reading uv.lock / pyproject.toml at base_commit: " + e.getMessage());
        }
        return FixVerifier.PYTHON_SETUP;
    }

    /** The PEP 735 dependency group of the tests (tests, test or testing) pyproject.toml declares, or null. */
    static String testGroup(String pyproject) {
        boolean in = false;
        for (String line : pyproject.split("\n")) {
            String l = line.strip();
            if (l.startsWith("[")) in = l.equals("[dependency-groups]");
            else if (in) {
                java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\"?(tests|test|testing)\"?\\s*=").matcher(l);
                if (m.find()) return m.group(1);
            }
        }
        return null;
    }

    /** The test command when no spec gives one (SWE-bench's TEST_PYTEST, without the cache). */
    static final String PYTEST = "python -m pytest -rA -p no:cacheprovider";

    /** Up to this many listed tests, grading runs them by id; beyond it, their files (an argument list stays short). */
    static final int MAX_IDS = 100;

    /**
     * pytest on the listed tests by id (FAIL_TO_PASS, then PASS_TO_PASS, shell-quoted): the reward counts only them, and
     * the file's other tests can neither change it nor raise findings; with more than {@link #MAX_IDS}, on the test
     * patch's Python files and the files the ids name, as SWE-bench's harness runs them.
     */
    static String command(String pytest, SweBenchInstance inst, Set<String> testFiles) {
        List<String> ids = concat(inst.failToPass(), inst.passToPass());
        String base = pytest + " ";
        if (ids.size() <= MAX_IDS && ids.stream().allMatch(id -> id.contains("::"))) {
            return base + String.join(" ", ids.stream().map(id -> "'" + id.replace("'", "'\\''") + "'").toList());
        }
        Set<String> files = new LinkedHashSet<>();
        testFiles.stream().filter(f -> f.endsWith(".py")).forEach(files::add);
        for (String id : ids) {
            int sep = id.indexOf("::");
            if (sep > 0 && id.substring(0, sep).endsWith(".py")) files.add(id.substring(0, sep));
        }
        return base + String.join(" ", files);
    }

    /** The environment when nothing derives: the repository at base_commit, a Python venv, the package and pytest. */
    private static ObjectNode fallback(Path repo, String commit) {
        ObjectNode root = new ObjectMapper().createObjectNode();
        root.put("apiVersion", "crucible.dev/v1alpha1").put("kind", "RLEnvironment");
        root.putObject("metadata");
        ObjectNode spec = root.putObject("spec");
        spec.putObject("source").put("repo", repo.toAbsolutePath().normalize().toString()).put("commit", commit);
        ObjectNode setup = spec.putObject("setup");
        setup.put("script", FixVerifier.PYTHON_SETUP).put("timeoutSeconds", 1800);
        setup.putObject("toolchains").put("python", "3");
        spec.putObject("task");
        ArrayNode tools = spec.putArray("tools");
        List.of("bash", "read_file", "write_file", "edit", "list").forEach(tools::add);
        return root;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static ObjectNode object(ObjectNode parent, String field) {
        return parent.get(field) instanceof ObjectNode o ? o : parent.putObject(field);
    }

    private static void array(ObjectNode owner, String field, List<String> values) {
        ArrayNode a = owner.putArray(field);
        values.forEach(a::add);
    }

    /** git with a bounded wait; discovery stops at {@code ceiling} so a scratch folder is never taken for a repository's. */
    static final class Git {
        record Result(int exit, byte[] bytes, String err) {
            String out() {
                return new String(bytes, StandardCharsets.UTF_8);
            }
        }

        static Result run(Path dir, Path ceiling, String... args) throws IOException {
            List<String> cmd = new ArrayList<>(List.of("git", "-c", "core.autocrlf=false"));
            cmd.addAll(List.of(args));
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
            if (ceiling != null) pb.environment().put("GIT_CEILING_DIRECTORIES", ceiling.toAbsolutePath().toString());
            Path err = Files.createTempFile("crucible-git-", ".err");
            pb.redirectError(err.toFile());
            Process p = pb.start();
            try {
                byte[] out = p.getInputStream().readAllBytes();
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException("git " + String.join(" ", args) + ": no answer in 120 s");
                }
                return new Result(p.exitValue(), out, Files.readString(err));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
                throw new IOException("interrupted", e);
            } finally {
                Files.deleteIfExists(err);
            }
        }
    }
}
