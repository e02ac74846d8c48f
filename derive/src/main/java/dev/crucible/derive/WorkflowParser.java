package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;

/** Reads workflow YAML into {@link Workflow}, rejecting shapes GitHub would reject, with line numbers. */
final class WorkflowParser {
    private WorkflowParser() {
    }

    static Workflow parse(String file, String text) throws DerivationException {
        YamlDocument doc = YamlDocument.parse(file, text);
        Map<String, Node> top = doc.mapping(doc.root(), "the workflow");
        Node jobsNode = top.get("jobs");
        if (jobsNode == null) {
            throw new DerivationException(file, null, YamlDocument.line(doc.root()),
                    "not a GitHub Actions workflow: it has no 'jobs:' section");
        }
        Map<String, WorkflowJob> jobs = new LinkedHashMap<>();
        Map<String, Integer> jobLines = YamlDocument.keyLines(jobsNode);
        for (Map.Entry<String, Node> e : doc.mapping(jobsNode, "jobs").entrySet()) {
            try {
                jobs.put(e.getKey(), job(doc, e.getKey(), jobLines.get(e.getKey()), e.getValue()));
            } catch (DerivationException ex) {
                throw ex.inJob(e.getKey());
            }
        }
        if (jobs.isEmpty()) {
            throw new DerivationException(file, null, YamlDocument.keyLines(doc.root()).get("jobs"), "'jobs:' is empty");
        }
        return new Workflow(file, doc.stringMap(top, "env", "env"), defaults(doc, top),
                jobs, YamlDocument.keyLines(doc.root()).get("jobs"));
    }

    private static RunDefaults defaults(YamlDocument doc, Map<String, Node> parent) throws DerivationException {
        Map<String, Node> defaults = doc.optionalMapping(parent, "defaults", "defaults");
        Map<String, Node> run = doc.optionalMapping(defaults, "run", "defaults.run");
        return new RunDefaults(doc.optionalScalar(run, "shell", "defaults.run.shell"),
                doc.optionalScalar(run, "working-directory", "defaults.run.working-directory"));
    }

    private static WorkflowJob job(YamlDocument doc, String id, int line, Node node) throws DerivationException {
        Map<String, Node> job = doc.mapping(node, "job '" + id + "'");
        Map<String, Node> strategy = doc.optionalMapping(job, "strategy", "strategy");
        Node matrixNode = strategy.get("matrix");
        int matrixLine = matrixNode == null ? 0 : YamlDocument.keyLines(job.get("strategy")).get("matrix");
        List<WorkflowStep> steps = new ArrayList<>();
        Node stepsNode = job.get("steps");
        if (stepsNode != null && !YamlDocument.isNull(stepsNode)) {
            int number = 1;
            for (Node s : doc.sequence(stepsNode, "steps")) {
                steps.add(step(doc, number++, s));
            }
        }
        String uses = doc.optionalScalar(job, "uses", "uses");
        if (uses == null && (stepsNode == null || steps.isEmpty())) {
            throw new DerivationException(doc.file(), id, line, "the job has no steps");
        }
        return new WorkflowJob(id, doc.optionalScalar(job, "name", "name"), line,
                doc.plain(job.get("runs-on")), doc.stringMap(job, "env", "env"), defaults(doc, job),
                doc.plain(matrixNode), matrixLine, uses,
                doc.optionalScalar(job, "if", "if"), containerImage(doc, job.get("container")),
                services(doc, job), needs(doc, job.get("needs")),
                doc.optionalScalar(job, "timeout-minutes", "timeout-minutes"), steps);
    }

    private static WorkflowStep step(YamlDocument doc, int number, Node node) throws DerivationException {
        String what = "step " + number;
        Map<String, Node> step = doc.mapping(node, what);
        String uses = doc.optionalScalar(step, "uses", what + ".uses");
        Node runNode = step.get("run");
        String run = doc.scalar(runNode, what + ".run");
        if (uses != null && runNode != null) {
            throw doc.error(node, what + " has both 'uses' and 'run'; a step has exactly one");
        }
        if (uses == null && runNode == null) {
            throw doc.error(node, what + " has neither 'uses' nor 'run'");
        }
        return new WorkflowStep(number, YamlDocument.line(node),
                doc.optionalScalar(step, "id", what + ".id"), doc.optionalScalar(step, "name", what + ".name"),
                doc.optionalScalar(step, "if", what + ".if"), uses, doc.stringMap(step, "with", what + ".with"),
                run == null ? null : run, runNode == null ? 0 : YamlDocument.firstContentLine(runNode),
                doc.optionalScalar(step, "shell", what + ".shell"),
                doc.optionalScalar(step, "working-directory", what + ".working-directory"),
                doc.stringMap(step, "env", what + ".env"),
                doc.optionalScalar(step, "continue-on-error", what + ".continue-on-error"),
                doc.optionalScalar(step, "timeout-minutes", what + ".timeout-minutes"));
    }

    private static String containerImage(YamlDocument doc, Node container) throws DerivationException {
        if (container == null || YamlDocument.isNull(container)) {
            return null;
        }
        if (container instanceof ScalarNode) {
            return doc.scalar(container, "container");
        }
        return doc.optionalScalar(doc.mapping(container, "container"), "image", "container.image");
    }

    private static Map<String, String> services(YamlDocument doc, Map<String, Node> job) throws DerivationException {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, Node> e : doc.optionalMapping(job, "services", "services").entrySet()) {
            out.put(e.getKey(), containerImage(doc, e.getValue()));
        }
        return out;
    }

    private static List<String> needs(YamlDocument doc, Node needs) throws DerivationException {
        List<String> out = new ArrayList<>();
        if (needs == null || YamlDocument.isNull(needs)) {
            return out;
        }
        if (needs instanceof ScalarNode) {
            out.add(doc.scalar(needs, "needs"));
            return out;
        }
        for (Node n : doc.sequence(needs, "needs")) {
            out.add(doc.scalar(n, "needs"));
        }
        return out;
    }
}
