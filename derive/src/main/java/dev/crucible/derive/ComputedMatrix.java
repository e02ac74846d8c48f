package dev.crucible.derive;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * A matrix CI computes at run time ({@code matrix: ${{ fromJSON(needs.setup.outputs.matrix) }}}, or one key
 * so) is resolved, in this order: the producing step writes the JSON as a literal to {@code $GITHUB_OUTPUT};
 * the producing step is run (only when the deriver may run repository code: {@link StepRunner}); the versions
 * the project declares for the toolchain the key feeds ({@link DeclaredVersions}). What is left stays as
 * written, and {@link MatrixExpander} asks for {@code --matrix} as before.
 */
final class ComputedMatrix {
    /** Runs a step's script in a checkout of the commit and returns what it wrote to $GITHUB_OUTPUT (null: could not). */
    interface StepRunner {
        String run(String script, String workingDirectory) throws IOException;
    }

    private static final Pattern FROM_JSON = Pattern.compile("(?is)^\\s*\\$\\{\\{\\s*fromjson\\(\\s*(.+?)\\s*\\)\\s*}}\\s*$");
    private static final Pattern NEEDS_OUTPUT = Pattern.compile("needs\\.([A-Za-z0-9_-]+)\\.outputs\\.([A-Za-z0-9_-]+)");
    private static final Pattern STEP_OUTPUT = Pattern.compile("(?s)^\\s*\\$\\{\\{\\s*steps\\.([A-Za-z0-9_-]+)\\.outputs\\.([A-Za-z0-9_-]+)\\s*}}\\s*$");
    private static final Pattern MATRIX_KEY = Pattern.compile("matrix\\.([A-Za-z_][A-Za-z0-9_-]*)");

    private ComputedMatrix() {
    }

    static WorkflowJob resolve(String workflowText, Workflow workflow, WorkflowJob job, Function<String, String> readFile,
            StepRunner runner, List<String> notes) {
        Object matrix = job.matrix();
        Object resolved = matrix;
        if (matrix instanceof String s && FROM_JSON.matcher(s).matches()) {
            Object v = value(s, null, workflowText, workflow, job, readFile, runner, notes);
            resolved = v instanceof Map<?, ?> ? v : matrix;
        } else if (matrix instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                String key = String.valueOf(e.getKey());
                Object v = e.getValue();
                if (v instanceof String s && FROM_JSON.matcher(s).matches()) {
                    Object r = value(s, key, workflowText, workflow, job, readFile, runner, notes);
                    v = r instanceof List<?> ? r : v;
                }
                out.put(key, v);
            }
            resolved = out;
        }
        if (resolved == matrix) {
            return job;
        }
        return new WorkflowJob(job.id(), job.name(), job.line(), job.runsOn(), job.env(), job.defaults(), resolved,
                job.matrixLine(), job.uses(), job.ifCondition(), job.containerImage(), job.services(), job.needs(),
                job.timeoutMinutes(), job.steps());
    }

    /** The value of one {@code fromJSON(...)}; {@code key} null for the whole matrix. Null when unresolved. */
    private static Object value(String expression, String key, String workflowText, Workflow workflow, WorkflowJob job,
            Function<String, String> readFile, StepRunner runner, List<String> notes) {
        String inner = FROM_JSON.matcher(expression).replaceFirst("$1").strip();
        String what = key == null ? "the matrix" : "matrix key '" + key + "'";
        if (inner.length() > 1 && inner.startsWith("'") && inner.endsWith("'")) {
            return parsed(inner.substring(1, inner.length() - 1).replace("''", "'"));
        }
        Matcher needs = NEEDS_OUTPUT.matcher(inner);
        if (needs.matches()) {
            Object v = fromProducer(needs.group(1), needs.group(2), what, workflowText, workflow, readFile, runner, notes);
            if (v != null) {
                return v;
            }
        }
        Object declared = key == null ? declaredMatrix(job, readFile, notes) : declaredKey(job, key, readFile, notes);
        if (declared == null) {
            notes.add(what + " is computed at run time (" + inner + ") and could not be resolved here: give it with --matrix");
        }
        return declared;
    }

    private static Object fromProducer(String jobId, String output, String what, String workflowText, Workflow workflow,
            Function<String, String> readFile, StepRunner runner, List<String> notes) {
        List<String> said = new ArrayList<>();
        String text = produced(jobId, output, what, workflowText, workflow, runner, said);
        Object v = text == null ? null : parsed(text);
        if (v != null || text == null) {
            notes.addAll(said);
        } else {
            notes.add(what + ": job '" + jobId + "' output '" + output + "' is not JSON: " + text.strip());
        }
        return v;
    }

    /**
     * The {@code needs.J.outputs.O} the job reads (steps, env, conditions), each resolved as a computed matrix is
     * (a literal, or the producing step run when allowed), as the expression context's {@code needs}: what stays
     * unknown is reported where it is used, as before.
     */
    static Map<String, Object> neededOutputs(String workflowText, Workflow workflow, WorkflowJob job, StepRunner runner,
            List<String> notes) {
        StringBuilder text = new StringBuilder();
        job.env().values().forEach(v -> text.append(v).append('\n'));
        for (WorkflowStep s : job.steps()) {
            text.append(s.run()).append('\n').append(s.ifCondition()).append('\n').append(s.name()).append('\n');
            s.with().values().forEach(v -> text.append(v).append('\n'));
            s.env().values().forEach(v -> text.append(v).append('\n'));
        }
        ExpressionContext.OpenMap needs = new ExpressionContext.OpenMap();
        Matcher m = NEEDS_OUTPUT.matcher(text);
        while (m.find()) {
            String jobId = m.group(1);
            String output = m.group(2);
            if (!job.needs().contains(jobId)) {
                continue;
            }
            ExpressionContext.OpenMap j = (ExpressionContext.OpenMap) needs.computeIfAbsent(jobId, k -> {
                ExpressionContext.OpenMap x = new ExpressionContext.OpenMap();
                x.put("outputs", new ExpressionContext.OpenMap());
                return x;
            });
            ExpressionContext.OpenMap outputs = (ExpressionContext.OpenMap) j.get("outputs");
            if (outputs.containsKey(output)) {
                continue;
            }
            String v = produced(jobId, output, "needs." + jobId + ".outputs." + output, workflowText, workflow, runner, notes);
            if (v != null) {
                outputs.put(output, v.strip());
            }
        }
        return needs;
    }

    /** The text job {@code jobId} gives as output {@code output}, with what was done said in {@code notes}; null: unknown. */
    private static String produced(String jobId, String output, String what, String workflowText, Workflow workflow,
            StepRunner runner, List<String> notes) {
        WorkflowJob producer = workflow.jobs().get(jobId);
        Object outputs = jobsMap(workflowText).get(jobId) instanceof Map<?, ?> j ? j.get("outputs") : null;
        Object template = outputs instanceof Map<?, ?> o ? o.get(output) : null;
        if (producer == null || template == null) {
            return null;
        }
        Matcher step = STEP_OUTPUT.matcher(String.valueOf(template));
        if (!step.matches()) {
            String v = String.valueOf(template).contains("${{") ? null : String.valueOf(template);
            if (v != null) {
                notes.add(what + ": job '" + jobId + "' output '" + output + "' is written out in the workflow");
            }
            return v;
        }
        String stepId = step.group(1);
        String name = step.group(2);
        WorkflowStep s = producer.steps().stream().filter(x -> stepId.equals(x.id())).findFirst().orElse(null);
        if (s == null || s.run() == null) {
            return null;
        }
        String literal = literalOutput(s.run(), name);
        if (literal != null) {
            notes.add(what + ": read from job '" + jobId + "' step '" + stepId + "', which writes it as a literal");
            return literal;
        }
        if (runner == null) {
            return null;
        }
        try {
            String script;
            try {
                script = ExpressionTemplates.substitute(s.run(), new ExpressionContext(Map.of(), workflow.env(), null)).text();
            } catch (RuntimeException e) {
                script = s.run();
            }
            String written = runner.run(script, s.workingDirectory());
            String out = written == null ? null : outputValue(written, name);
            notes.add(out != null ? what + ": ran job '" + jobId + "' step '" + stepId + "' in a checkout of the commit; it wrote "
                    + out.strip() : what + ": ran job '" + jobId + "' step '" + stepId + "', which wrote no '" + name + "' output");
            return out;
        } catch (IOException e) {
            notes.add(what + ": running job '" + jobId + "' step '" + stepId + "' failed: " + e.getMessage());
            return null;
        }
    }

    /** {@code echo "K=VALUE" >> $GITHUB_OUTPUT} (or {@code ::set-output name=K::VALUE}) with nothing to expand in VALUE. */
    static String literalOutput(String script, String name) {
        Pattern p = Pattern.compile("(?m)^\\s*echo\\s+(['\"]?)" + Pattern.quote(name) + "=(.*?)\\1\\s*>>\\s*\"?\\$\\{?GITHUB_OUTPUT}?\"?\\s*$"
                + "|^\\s*echo\\s+(['\"]?)::set-output name=" + Pattern.quote(name) + "::(.*?)\\3\\s*$");
        Matcher m = p.matcher(script);
        while (m.find()) {
            boolean single = "'".equals(m.group(1)) || "'".equals(m.group(3));
            String v = m.group(2) != null ? m.group(2) : m.group(4);
            if (single || !(v.contains("$") || v.contains("`"))) {
                return single ? v : v.replace("\\\"", "\"");
            }
        }
        return null;
    }

    /** {@code K=value} or {@code K<<DELIM ... DELIM} in a $GITHUB_OUTPUT file; the last one wins, as on GitHub. */
    static String outputValue(String file, String name) {
        String found = null;
        List<String> lines = file.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.startsWith(name + "=")) {
                found = l.substring(name.length() + 1);
            } else if (l.startsWith(name + "<<")) {
                String delim = l.substring(name.length() + 2).strip();
                StringBuilder b = new StringBuilder();
                for (i++; i < lines.size() && !lines.get(i).equals(delim); i++) {
                    b.append(lines.get(i)).append('\n');
                }
                found = b.toString();
            }
        }
        return found;
    }

    private static Object parsed(String json) {
        try {
            return ExpressionFunctions.fromJsonNode(new ObjectMapper().readTree(json));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static Map<?, ?> jobsMap(String workflowText) {
        try {
            Object doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(workflowText);
            return doc instanceof Map<?, ?> d && d.get("jobs") instanceof Map<?, ?> j ? j : Map.of();
        } catch (RuntimeException e) {
            return Map.of();
        }
    }

    /** The declared versions of the toolchain {@code key} feeds (a setup action's version input names matrix.KEY). */
    private static List<String> declaredKey(WorkflowJob job, String key, Function<String, String> readFile, List<String> notes) {
        String toolchain = toolchainOf(job, key);
        DeclaredVersions.Declared d = toolchain == null ? null : DeclaredVersions.of(toolchain, readFile);
        if (d == null) {
            return null;
        }
        notes.add("matrix key '" + key + "' is computed at run time; used the " + toolchain + " versions the project declares ("
                + d.source() + "): " + d.versions());
        return d.versions();
    }

    /** A whole computed matrix: every key the job reads, each from declarations (runs-on keys: Linux). */
    private static Map<String, Object> declaredMatrix(WorkflowJob job, Function<String, String> readFile, List<String> notes) {
        Set<String> keys = new LinkedHashSet<>();
        String runsOn = job.runsOn() == null ? "" : String.valueOf(job.runsOn());
        collect(runsOn, keys);
        collect(job.name(), keys);
        job.env().values().forEach(v -> collect(v, keys));
        for (WorkflowStep s : job.steps()) {
            collect(s.run(), keys);
            collect(s.name(), keys);
            s.with().values().forEach(v -> collect(v, keys));
            s.env().values().forEach(v -> collect(v, keys));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (String key : keys) {
            List<String> versions = declaredKey(job, key, readFile, new ArrayList<>());
            if (versions != null) {
                out.put(key, versions);
            } else if (runsOn.contains("matrix." + key)) {
                out.put(key, List.of("ubuntu-latest"));
            } else {
                missing.add(key);
            }
        }
        if (out.isEmpty() || !missing.isEmpty()) {
            if (!missing.isEmpty()) {
                notes.add("the computed matrix's key(s) " + missing + " have no declared values: give them with --matrix");
            }
            return null;
        }
        notes.add("the matrix is computed at run time; rebuilt from what the project declares: " + out);
        return out;
    }

    private static void collect(String text, Set<String> keys) {
        if (text != null) {
            Matcher m = MATRIX_KEY.matcher(text);
            while (m.find()) {
                keys.add(m.group(1));
            }
        }
    }

    private static String toolchainOf(WorkflowJob job, String key) {
        Pattern ref = Pattern.compile("matrix\\." + Pattern.quote(key) + "(?![A-Za-z0-9_-])");
        for (WorkflowStep s : job.steps()) {
            String[] spec = s.uses() == null ? null : ActionMapping.toolchainInput(s.uses());
            if (spec != null && s.with().get(spec[1]) != null && ref.matcher(s.with().get(spec[1])).find()) {
                return spec[0];
            }
        }
        return null;
    }
}
