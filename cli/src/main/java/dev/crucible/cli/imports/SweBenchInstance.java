package dev.crucible.cli.imports;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One SWE-bench instance as the {@code swebench} package's {@code SWEbenchInstance} defines it: {@code instance_id},
 * {@code repo} (owner/name), {@code base_commit}, {@code problem_statement}, {@code test_patch}, {@code patch} (the gold
 * fix; optional here), {@code FAIL_TO_PASS} and {@code PASS_TO_PASS} (lists of test ids, or a JSON string holding
 * one, as the dataset stores them), {@code version} (optional: the key of swebench's install specifications). Other
 * fields (hints_text, created_at, environment_setup_commit, image, eval_script ...) are ignored. Every refusal names the file and the field.
 */
record SweBenchInstance(Path file, String instanceId, String repo, String baseCommit, String problemStatement,
        String testPatch, String patch, List<String> failToPass, List<String> passToPass, String version) {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern DIFF_HEADER = Pattern.compile("(?m)^diff --git a/(\\S+) b/(\\S+)$");

    static SweBenchInstance read(Path file) throws HarborTask.InvalidTask, IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new HarborTask.InvalidTask(file + ": missing or not a file (a SWE-bench instance as JSON)");
        }
        JsonNode root;
        try {
            root = JSON.readTree(HarborTask.text(file));
        } catch (JsonProcessingException e) {
            throw new HarborTask.InvalidTask(file + ":" + e.getLocation().getLineNr() + ": not JSON: " + e.getOriginalMessage());
        }
        if (root != null && root.isArray() && root.size() == 1) root = root.get(0);  // a one-instance dataset slice
        if (root == null || !root.isObject()) {
            throw new HarborTask.InvalidTask(file + ": expected one instance (a JSON object with instance_id, repo, base_commit, ...)");
        }
        String id = string(file, root, "instance_id", true);
        String repo = string(file, root, "repo", true);
        if (!repo.matches("[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")) {
            throw new HarborTask.InvalidTask(file + ": repo: expected owner/name, not " + repo);
        }
        String base = string(file, root, "base_commit", true);
        if (!base.matches("[0-9a-fA-F]{7,40}")) {
            throw new HarborTask.InvalidTask(file + ": base_commit: expected a commit id (7 to 40 hex digits), not " + base);
        }
        String prompt = string(file, root, "problem_statement", true);
        String testPatch = patch(file, root, "test_patch", true);
        String gold = patch(file, root, "patch", false);
        List<String> f2p = tests(file, root, "FAIL_TO_PASS", true);
        if (f2p.isEmpty()) throw new HarborTask.InvalidTask(file + ": FAIL_TO_PASS: empty (the tests the fix makes pass)");
        List<String> p2p = tests(file, root, "PASS_TO_PASS", false);
        String version = string(file, root, "version", false);  // a JSON number would lose digits (2.10 is 2.1): text only
        return new SweBenchInstance(file, id, repo, base.toLowerCase(Locale.ROOT), prompt, testPatch, gold, f2p, p2p,
                version == null ? null : version.strip());
    }

    /** The files a patch touches (the "b/" side; "a/" for a deletion), in patch order. */
    static List<String> files(String patch) {
        Set<String> out = new LinkedHashSet<>();
        Matcher m = DIFF_HEADER.matcher(patch);
        while (m.find()) out.add(m.group(2).equals("/dev/null") ? m.group(1) : m.group(2));
        return List.copyOf(out);
    }

    /** A Kubernetes name from instance_id (psf__requests-2317 becomes psf-requests-2317). */
    String name() throws HarborTask.InvalidTask {
        String k8s = instanceId.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]+", "-").replaceAll("-{2,}", "-")
                .replaceAll("^-+|-+$", "");
        if (k8s.isEmpty()) throw new HarborTask.InvalidTask(file + ": instance_id: no usable name in '" + instanceId + "'");
        return k8s.length() > 63 ? k8s.substring(0, 63).replaceAll("-+$", "") : k8s;
    }

    private static String string(Path file, JsonNode root, String field, boolean required) throws HarborTask.InvalidTask {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) {
            if (required) throw new HarborTask.InvalidTask(file + ": " + field + ": missing");
            return null;
        }
        if (!v.isTextual()) throw new HarborTask.InvalidTask(file + ": " + field + ": expected a string, not " + v.getNodeType().name().toLowerCase(Locale.ROOT));
        if (v.asText().isBlank()) {
            if (required) throw new HarborTask.InvalidTask(file + ": " + field + ": empty");
            return null;
        }
        return v.asText();
    }

    private static String patch(Path file, JsonNode root, String field, boolean required) throws HarborTask.InvalidTask {
        String p = string(file, root, field, required);
        if (p == null) return null;
        if (files(p).isEmpty()) throw new HarborTask.InvalidTask(file + ": " + field + ": not a git diff (no 'diff --git a/... b/...' line)");
        for (String f : files(p)) {
            if (f.startsWith("/") || Path.of(f).normalize().startsWith("..")) {
                throw new HarborTask.InvalidTask(file + ": " + field + ": path leaves the repository: " + f);
            }
        }
        return p.endsWith("\n") ? p : p + "\n";
    }

    private static List<String> tests(Path file, JsonNode root, String field, boolean required) throws HarborTask.InvalidTask {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) {
            if (required) throw new HarborTask.InvalidTask(file + ": " + field + ": missing");
            return List.of();
        }
        if (v.isTextual()) {  // the dataset stores the lists as JSON text
            try {
                v = JSON.readTree(v.asText());
            } catch (JsonProcessingException e) {
                throw new HarborTask.InvalidTask(file + ": " + field + ": a string that is not a JSON list: " + e.getOriginalMessage());
            }
        }
        if (v == null || !v.isArray()) throw new HarborTask.InvalidTask(file + ": " + field + ": expected a list of test ids");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
            JsonNode t = v.get(i);
            if (!t.isTextual() || t.asText().isBlank()) {
                throw new HarborTask.InvalidTask(file + ": " + field + "[" + i + "]: expected a test id (a non-empty string)");
            }
            out.add(t.asText());
        }
        return List.copyOf(out);
    }
}
