package dev.crucible.derive;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.Locale;

/** The derivation report as JSON: what was chosen and what became of every step, with lines. */
final class ReportJson {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private ReportJson() {
    }

    static ObjectNode tree(Derivation d) {
        ObjectNode root = JSON.createObjectNode();
        root.put("workflow", d.workflowPath());
        if (d.commit() != null) {
            root.put("commit", d.commit());
        }
        root.put("job", d.jobId());
        root.put("jobLine", d.jobLine());
        ObjectNode matrix = root.putObject("matrix");
        d.matrix().forEach(matrix::put);
        root.put("matrixCombinations", d.matrixCombinations());
        ArrayNode steps = root.putArray("steps");
        for (StepReport s : d.steps()) {
            ObjectNode n = steps.addObject();
            n.put("index", s.index());
            n.put("line", s.line());
            n.put("name", s.name());
            n.put("decision", s.decision().name().toLowerCase(Locale.ROOT));
            n.put("reason", s.reason());
            ArrayNode notes = n.putArray("notes");
            s.notes().forEach(notes::add);
        }
        ArrayNode notes = root.putArray("notes");
        d.notes().forEach(notes::add);
        ObjectNode toolchains = root.putObject("toolchains");
        d.toolchains().forEach(toolchains::put);
        ArrayNode secretEnv = root.putArray("secretEnv");
        d.secretEnv().forEach(secretEnv::add);
        root.set("verifier", JSON.valueToTree(d.verifier()));
        if (d.lint() != null) {
            root.set("lint", JSON.valueToTree(d.lint()));
        }
        return root;
    }

    /**
     * The derivation in the shape of the RLEnvironment status's {@code derived} section (workflow, job,
     * matrix, setupScript, testCommand, toolchains, steps of index/name/line/decision/reason), so the
     * reconciler can convert it to the API type with Jackson and stay free of this package's types.
     */
    static ObjectNode status(Derivation d) {
        ObjectNode root = JSON.createObjectNode();
        root.put("workflow", d.workflowPath());
        root.put("job", d.jobId());
        if (!d.matrix().isEmpty()) {
            ObjectNode matrix = root.putObject("matrix");
            d.matrix().forEach(matrix::put);
        }
        root.put("setupScript", d.setupScript());
        root.put("testCommand", d.verifier().command());
        if (!d.toolchains().isEmpty()) {
            ObjectNode toolchains = root.putObject("toolchains");
            d.toolchains().forEach(toolchains::put);
        }
        ArrayNode steps = root.putArray("steps");
        for (StepReport s : d.steps()) {
            ObjectNode n = steps.addObject();
            n.put("index", s.index());
            n.put("name", s.name());
            n.put("line", s.line());
            n.put("decision", s.decision().name().toLowerCase(Locale.ROOT));
            n.put("reason", s.reason());
        }
        return root;
    }

    static String render(Derivation d) {
        try {
            return JSON.writeValueAsString(tree(d)) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
