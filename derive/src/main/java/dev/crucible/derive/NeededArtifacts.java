package dev.crucible.derive;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A test job that downloads an artifact a {@code needs:} job uploads ({@code build} makes dist/, {@code
 * test} installs from it) gets that job's producing steps in its setup, in place of the download: the
 * steps before the upload that set up or build, run in the same workspace, then the uploaded folder is
 * copied to where the download would have put it.
 */
final class NeededArtifacts {
    private NeededArtifacts() {
    }

    static void resolve(Workflow workflow, WorkflowJob job, List<PlannedStep> steps, String commit,
            Function<String, String> readFile, List<String> notes) throws DerivationException {
        for (PlannedStep p : steps) {
            if (p.step.uses() == null || !p.step.uses().startsWith("actions/download-artifact")
                    || p.disposition != Disposition.DROPPED) {
                continue;
            }
            String name = p.step.with().get("name");
            String downloadPath = p.step.with().getOrDefault("path", ".");
            for (String needed : job.needs()) {
                WorkflowJob producer = workflow.jobs().get(needed);
                if (producer == null || producer.uses() != null) {
                    continue;
                }
                int upload = uploadIndex(producer, name);
                if (upload < 0) {
                    continue;
                }
                produce(workflow, producer, upload, p, downloadPath, commit, readFile, notes);
                break;
            }
        }
    }

    private static int uploadIndex(WorkflowJob producer, String name) {
        for (int i = 0; i < producer.steps().size(); i++) {
            WorkflowStep s = producer.steps().get(i);
            if (s.uses() != null && s.uses().startsWith("actions/upload-artifact")
                    && (name == null || name.equals(s.with().get("name")))) {
                return i;
            }
        }
        return -1;
    }

    private static void produce(Workflow workflow, WorkflowJob producer, int upload, PlannedStep download,
            String downloadPath, String commit, Function<String, String> readFile, List<String> notes)
            throws DerivationException {
        List<String> ignored = new ArrayList<>();
        MatrixChooser.Choice choice = MatrixChooser.choose(workflow.file(), producer, Map.of(), commit, ignored);
        Map<String, String> env = new LinkedHashMap<>(workflow.env());
        env.putAll(producer.env());
        ExpressionContext context = new ExpressionContext(choice.combination(), env, commit);
        RunDefaults defaults = workflow.defaults().overriddenBy(producer.defaults());
        WorkflowJob before = new WorkflowJob(producer.id(), producer.name(), producer.line(), producer.runsOn(),
                producer.env(), producer.defaults(), producer.matrix(), producer.matrixLine(), null, null, null,
                Map.of(), List.of(), null, producer.steps().subList(0, upload));
        List<PlannedStep> planned = new StepPlanner(workflow.file(), before, context, env, defaults, readFile).plan();
        StringBuilder script = new StringBuilder();
        List<Integer> ran = new ArrayList<>();
        for (PlannedStep q : planned) {
            if (q.disposition == Disposition.TOOLCHAIN && q.action != null) {
                download.nestedToolchains.add(q.action);
            }
            download.nestedToolchains.addAll(q.nestedToolchains);
            boolean runs = q.script != null && (q.disposition == null || q.disposition == Disposition.SETUP)
                    && q.kind != CommandKind.TEST && q.kind != CommandKind.LINT && q.kind != CommandKind.CI_ONLY;
            if (!runs) {
                continue;
            }
            script.append("# job '").append(producer.id()).append("' step ").append(q.step.number()).append(": ")
                    .append(q.displayLabel().replace('\n', ' ')).append("\n(\n");
            ShellScripts.body(script, q, q.script, q.shellTemplate);
            script.append(")\n");
            ran.add(q.step.number());
        }
        String uploaded = producer.steps().get(upload).with().getOrDefault("path", ".").strip();
        String from = uploaded.lines().findFirst().orElse(".").strip();
        if (from.contains("*")) {
            from = from.contains("/") ? from.substring(0, from.lastIndexOf('/')) : ".";
        }
        String to = downloadPath.strip();
        if (!normal(from).equals(normal(to))) {
            script.append("mkdir -p ").append(ShellScripts.quote(to)).append(" && cp -R ")
                    .append(ShellScripts.quote(normal(from))).append("/. ").append(ShellScripts.quote(to)).append("/\n");
        }
        download.script = script.toString();
        download.commandScript = download.script;
        download.producesArtifact = true;
        download.kind = CommandKind.OTHER;
        download.set(Disposition.SETUP, "downloads the artifact that job '" + producer.id() + "' uploads (step "
                + (upload + 1) + "): its steps " + ran + " run here instead, then " + from + " is where the download"
                + " puts it (" + to + ")");
        notes.add("job '" + producer.id() + "' (needed) makes the artifact the tests download: its steps " + ran
                + " run in setup");
    }

    private static String normal(String path) {
        String p = path.strip();
        while (p.startsWith("./")) {
            p = p.substring(2);
        }
        p = p.replaceAll("/+$", "");
        return p.isEmpty() ? "." : p;
    }
}
