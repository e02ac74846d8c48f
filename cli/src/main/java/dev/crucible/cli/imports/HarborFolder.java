package dev.crucible.cli.imports;

import dev.crucible.contract.RewardMode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.verifier.pristine.TreeCopy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Writes the RLEnvironment folder of an imported Harbor task:
 * {@code environment.yaml}; {@code workspace/} (what the Dockerfile copies into its WORKDIR); {@code hidden-tests/tests/}
 * (the task's tests, shown only to grading, at {@code tests/} of the grading tree); {@code solution/} (the reference
 * solution, never in the workspace); {@code environment/} (the Dockerfile, to build the image for a cluster).
 * Harbor's paths are absolute (WORKDIR, /tests) and the local runtime runs in the workspace wherever it lies,
 * so test and solution files get WORKDIR and /tests rewritten to paths relative to the workspace; each rewrite is
 * reported, never silent.
 */
final class HarborFolder {
    static final String MANIFEST = "environment.yaml";
    static final String MARKER = ".crucible-import";

    private HarborFolder() {
    }

    /** Writes the folder (replacing one this command wrote before); returns notes for the user: rewrites, left-out files. */
    static List<String> write(HarborTask task, Path out) throws IOException, HarborTask.InvalidTask {
        if (Files.exists(out, LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> s = Files.list(out)) {
                if (!Files.exists(out.resolve(MARKER)) && s.findAny().isPresent()) {
                    throw new HarborTask.InvalidTask(out + ": exists and is not a folder `crucible import` wrote; choose another --out");
                }
            }
            TreeCopy.delete(out);
        }
        Path tmp = Files.createDirectories(out.toAbsolutePath().getParent()).resolve(out.getFileName() + ".importing");
        if (Files.exists(tmp, LinkOption.NOFOLLOW_LINKS)) TreeCopy.delete(tmp);
        Files.createDirectories(tmp);
        List<String> notes = new ArrayList<>();
        try {
            Files.createDirectories(tmp.resolve("workspace"));
            if (task.dockerfile() != null) {
                TreeCopy.copy(task.dir().resolve("environment"), tmp.resolve("environment"));
                workspace(task, tmp.resolve("workspace"), notes);
            }
            TreeCopy.copy(task.dir().resolve("tests"), tmp.resolve("hidden-tests/tests"));
            rewrite(task, tmp.resolve("hidden-tests/tests"), "hidden-tests/tests/", notes);
            if (task.solveScript() != null) {
                TreeCopy.copy(task.dir().resolve("solution"), tmp.resolve("solution"));
                rewrite(task, tmp.resolve("solution"), "solution/", notes);
            }
            new YAMLMapper().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                    .enable(YAMLGenerator.Feature.LITERAL_BLOCK_STYLE).writeValue(tmp.resolve(MANIFEST).toFile(), manifest(task));
            Files.writeString(tmp.resolve(MARKER), "harbor " + task.dir().toAbsolutePath().normalize() + "\n");
            Files.move(tmp, out);
        } catch (IOException | HarborTask.InvalidTask | RuntimeException e) {
            TreeCopy.delete(tmp);  // nothing half-written is left where the user asked for the folder
            throw e;
        }
        return notes;
    }

    static ObjectNode manifest(HarborTask t) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode root = f.objectNode();
        root.put("apiVersion", "crucible.dev/v1alpha1").put("kind", "RLEnvironment");
        ObjectNode meta = root.putObject("metadata");
        meta.put("name", t.name());
        meta.putObject("labels").put("crucible.dev/imported-from", "harbor");
        ObjectNode ann = meta.putObject("annotations");
        if (t.solveScript() != null) ann.put("crucible.dev/reference-solution", "solution/solve.sh");
        if (t.dockerImage() == null) ann.put("crucible.dev/image-build", "docker build -t crucible/harbor/" + t.name() + ":latest environment");
        ObjectNode spec = root.putObject("spec");
        spec.put("image", t.dockerImage() != null ? t.dockerImage() : "crucible/harbor/" + t.name() + ":latest");
        spec.putObject("workspace").put("path", "./workspace").put("mountPath", t.workdir());
        spec.putObject("task").put("prompt", t.instruction());
        spec.set("tools", f.arrayNode().add("bash").add("read_file").add("write_file").add("edit").add("list"));
        ObjectNode v = spec.putObject("verifier");
        StringBuilder command = new StringBuilder("python3 -m pytest -q -p no:cacheprovider -rA");
        t.pytestFiles().forEach(p -> command.append(" tests/").append(p));
        v.put("type", "test-suite").put("framework", "pytest").put("command", command.toString()).put("rewardMode", RewardMode.BINARY.wire());
        v.put("timeoutSeconds", t.verifierTimeoutSec() == null ? 600 : (long) Math.ceil(t.verifierTimeoutSec()));
        ArrayNode prot = v.putArray("protectedPaths");
        prot.add("tests/**").add("conftest.py").add("pytest.ini");
        v.putObject("hiddenTests").put("path", "./hidden-tests");
        spec.putObject("hackPolicy").put("action", "flag");
        if (t.cpus() != null || t.memoryMb() != null) {
            ObjectNode r = spec.putObject("resources");
            if (t.cpus() != null) r.put("cpu", t.cpus() instanceof Long l ? Long.toString(l) : Math.round(t.cpus().doubleValue() * 1000) + "m");
            if (t.memoryMb() != null) r.put("memory", t.memoryMb() + "Mi");
        }
        if (!t.networkMode().equals("public")) spec.putObject("sandbox").putObject("network").put("egress", "deny");
        return root;
    }

    /** The Dockerfile's COPY/ADD of build-context files into WORKDIR, as the local workspace. */
    private static void workspace(HarborTask t, Path ws, List<String> notes) throws IOException, HarborTask.InvalidTask {
        Path context = t.dir().resolve("environment").toAbsolutePath().normalize();
        Path workdir = Path.of(t.workdir());
        for (Dockerfile.Copy c : t.dockerfile().copies()) {
            Path dest = Path.of(c.dest());
            if (!dest.startsWith(workdir)) {
                notes.add("environment/Dockerfile:" + c.line() + ": " + c.dest() + " is outside WORKDIR " + t.workdir() + "; only in the image");
                continue;
            }
            Path target = ws.resolve(workdir.relativize(dest).toString()).normalize();
            for (String s : c.sources()) {
                if (s.contains("*") || s.contains("?") || s.contains("://")) {
                    notes.add("environment/Dockerfile:" + c.line() + ": " + s + " (a pattern or URL) is left to the image build");
                    continue;
                }
                Path src = context.resolve(s).normalize();
                if (!src.startsWith(context)) {
                    throw new HarborTask.InvalidTask("environment/Dockerfile:" + c.line() + ": COPY source leaves the build context: " + s);
                }
                if (Files.isSymbolicLink(src) || !Files.exists(src)) {
                    throw new HarborTask.InvalidTask("environment/Dockerfile:" + c.line() + ": COPY source is missing or a link: " + s);
                }
                Path into = Files.isDirectory(src) ? target
                        : (c.destIsDir() || dest.equals(workdir) || Files.isDirectory(target)) ? target.resolve(src.getFileName().toString()) : target;
                Files.createDirectories(Files.isDirectory(src) ? into : into.getParent());
                if (Files.isDirectory(src)) {
                    try (Stream<Path> kids = Files.list(src)) {
                        for (Path k : kids.toList()) TreeCopy.copy(k, into.resolve(k.getFileName().toString()));
                    }
                } else {
                    TreeCopy.copy(src, into);
                }
            }
        }
    }

    /** WORKDIR and /tests in shell and Python files, rewritten relative to the workspace (each file reported). */
    private static void rewrite(HarborTask t, Path dir, String shown, List<String> notes) throws IOException, HarborTask.InvalidTask {
        Pattern work = absolute(t.workdir());
        Pattern tests = absolute("/tests");
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).filter(p -> p.toString().endsWith(".py")
                    || p.toString().endsWith(".sh")).sorted().toList();
        }
        for (Path p : files) {
            String before = HarborTask.text(p);
            String after = replace(tests, replace(work, before, ""), "tests");
            if (!after.equals(before)) {
                Files.writeString(p, after);
                notes.add(shown + dir.relativize(p) + ": " + t.workdir() + " and /tests rewritten relative to the workspace");
            }
        }
    }

    private static Pattern absolute(String path) {
        return Pattern.compile("(?<![\\w.$/-])" + Pattern.quote(path) + "(/|(?![\\w.-]))");
    }

    /** {@code P/x} becomes {@code x} under {@code to} ("" for the workspace itself); {@code P} alone becomes {@code to} or ".". */
    private static String replace(Pattern p, String text, String to) {
        Matcher m = p.matcher(text);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String r = m.group(1).equals("/") ? (to.isEmpty() ? "" : to + "/") : (to.isEmpty() ? "." : to);
            m.appendReplacement(sb, Matcher.quoteReplacement(r));
        }
        m.appendTail(sb);
        return sb.toString();
    }
}
