package dev.crucible.cli.derive;

import dev.crucible.contract.RewardMode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.derive.Derivation;
import dev.crucible.derive.FixCommit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;

/**
 * Writes a fix task's folder: {@code environment.yaml} (the derived environment with the workspace taken
 * from the fix's parent commit, the fix's tests hidden until grading and the verifier graded per test),
 * {@code hidden-tests/} (the test files as the fix leaves them) and {@code reference.patch} (the fix's
 * source diff, the reference solution; never shown to the agent).
 */
final class FixTaskFolder {
    static final String MANIFEST = "environment.yaml";
    static final String HIDDEN = "hidden-tests";
    static final String REFERENCE = "reference.patch";

    private FixTaskFolder() {
    }

    /**
     * Creates the folder (replacing an earlier task written there) with hidden tests and the reference patch,
     * which holds the fix's changes to {@code referenceFiles} (its source files less those the task protects).
     */
    static void prepare(Path dir, Path repo, FixCommit fix, java.util.List<String> referenceFiles) throws IOException {
        if (Files.exists(dir)) {
            boolean ours = Files.exists(dir.resolve(MANIFEST)) || Files.exists(dir.resolve(REFERENCE));
            try (Stream<Path> s = Files.list(dir)) {
                if (!ours && s.findAny().isPresent()) {
                    throw new IOException(dir + ": exists and is not a fix task folder; choose another -o");
                }
            }
            delete(dir);
        }
        Files.createDirectories(dir.resolve(HIDDEN));
        for (String test : fix.testFiles()) {
            Path target = dir.resolve(HIDDEN).resolve(test).normalize();
            if (!target.startsWith(dir.resolve(HIDDEN))) {
                throw new IOException("test file path leaves the task folder: " + test);
            }
            Files.createDirectories(target.getParent());
            Files.write(target, fix.fileAtFix(repo, test));
        }
        Files.writeString(dir.resolve(REFERENCE), fix.diff(repo, referenceFiles));
    }

    /**
     * Turns the derived manifest into the task's: source at the parent commit (no workspace copy of the
     * checkout), the prompt from the commit message, the per-test verifier with hidden tests and the
     * given test lists, the fix's test files protected.
     */
    static void shape(Derivation d, FixCommit fix, String repoName, FixVerifier.Command command,
            Collection<String> failToPass, Collection<String> passToPass) {
        ObjectNode root = d.manifest();
        ObjectNode metadata = (ObjectNode) root.get("metadata");
        metadata.put("name", fix.taskName(repoName));
        object(metadata, "labels").put("crucible.dev/derived-from", "fix-commit");
        ObjectNode annotations = object(metadata, "annotations");
        annotations.put("crucible.dev/fix-commit", fix.commit());
        annotations.put("crucible.dev/reference-solution", REFERENCE);
        ObjectNode spec = (ObjectNode) root.get("spec");
        spec.remove("workspace");
        ((ObjectNode) spec.get("source")).put("commit", fix.parent());
        ObjectNode setup = (ObjectNode) spec.get("setup");
        if (command.extraSetup() != null) {
            setup.put("script", setup.path("script").asText() + "\n\n" + command.extraSetup());
        }
        ((ObjectNode) spec.get("task")).put("prompt", prompt(fix));
        spec.remove("additionalVerifiers");
        ObjectNode v = (ObjectNode) spec.get("verifier");
        ObjectNode fresh = spec.putObject("verifier");
        fresh.put("type", command.type());
        if (command.framework() != null) {
            fresh.put("framework", command.framework());
        }
        fresh.put("command", command.command());
        if (command.reportPath() != null) {
            fresh.put("reportPath", command.reportPath());
        }
        fresh.set("failToPass", array(fresh, failToPass));
        fresh.set("passToPass", array(fresh, passToPass));
        fresh.put("rewardMode", RewardMode.BINARY.wire());
        fresh.put("timeoutSeconds", v.path("timeoutSeconds").asInt(1800));
        List<String> globs = new ArrayList<>();
        v.path("protectedPaths").forEach(g -> globs.add(g.asText()));
        for (String t : fix.testFiles()) {
            if (!globs.contains(t)) {
                globs.add(t);
            }
        }
        fresh.set("protectedPaths", array(fresh, globs));
        fresh.putObject("hiddenTests").put("path", HIDDEN);
    }

    private static ObjectNode object(ObjectNode parent, String field) {
        return parent.get(field) instanceof ObjectNode o ? o : parent.putObject(field);
    }

    private static ArrayNode array(ObjectNode owner, Collection<String> values) {
        ArrayNode a = owner.arrayNode();
        values.forEach(a::add);
        return a;
    }

    static String prompt(FixCommit fix) {
        return "This repository has a bug that upstream fixed in one commit. The commit message was:\n\n"
                + fix.message().strip().indent(4) + "\n"
                + "Make that fix in the source code. Tests that check it are added when your work is graded; "
                + "do not change the existing tests.\n";
    }

    /** Deletes a folder without following links, read-only folders too (a Go module cache is 0555). */
    static void delete(Path dir) throws IOException {
        dev.crucible.files.TreeDelete.delete(dir);
    }
}
