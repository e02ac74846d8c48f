package dev.crucible.derive;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Finds the workflow that tests a repository when none is named: the workflow files at the commit,
 * those named like test/ci first, and the first whose chosen job runs tests wins. Used by fix-commit
 * tasks, where a whole history is scanned and naming a workflow per commit is not practical, and by
 * {@code crucible derive} when no --workflow is given.
 */
public final class WorkflowFinder {
    private WorkflowFinder() {
    }

    /** The first workflow that derives with a test verifier; throws naming what each file gave. */
    public static Derivation derive(Path repo, String commit, String job) throws DerivationException {
        return derive(repo, commit, job, java.util.Map.of(), null);
    }

    /** As {@link #derive(Path, String, String)}, with a matrix choice and test steps as a named workflow takes them. */
    public static Derivation derive(Path repo, String commit, String job, java.util.Map<String, String> matrix, String testStep)
            throws DerivationException {
        List<String> files;
        try {
            files = workflowFiles(repo, commit);
        } catch (IllegalStateException e) {
            throw new DerivationException(".github/workflows", null, 0, e.getMessage());
        }
        if (files.isEmpty()) {
            throw new DerivationException(".github/workflows", null, 0, "no workflow files at commit " + commit
                    + ": name one with --workflow");
        }
        List<String> why = new ArrayList<>();
        Derivation elsewhere = null;
        Derivation secret = null;
        for (String f : files) {
            try {
                Derivation d = new WorkflowDeriver().derive(repo, commit, f, job, matrix, testStep);
                if (d.verifier().name().equals("tests") && !runsElsewhere(d) && !testsReadSecrets(d)) {
                    return d;
                }
                if (d.verifier().name().equals("tests") && !runsElsewhere(d)) { // MetaGPT's fulltest.yaml before unittest.yaml
                    if (secret == null) secret = d;
                    why.add(f + ": its test command reads secrets");
                    continue;
                }
                if (d.verifier().name().equals("tests")) { // uv's test-windows-trampolines.yml: kept only if nothing tests on Linux
                    if (elsewhere == null) elsewhere = d;
                    why.add(f + ": tests on another OS only");
                    continue;
                }
                why.add(f + ": only lints");
            } catch (DerivationException e) {
                why.add(f + ": " + e.problem());
            }
        }
        if (secret != null) {
            return secret;
        }
        if (elsewhere != null) {
            return elsewhere;
        }
        java.util.Optional<Derivation> conventional = WorkflowDeriver.conventional(repo, commit, why);
        if (conventional.isPresent()) {
            return conventional.get();
        }
        throw new DerivationException(".github/workflows", job, 0, "no workflow runs tests at commit " + commit
                + " (" + String.join("; ", why) + "): name one with --workflow");
    }

    static List<String> workflowFiles(Path repo, String commit) {
        List<String> out = new ArrayList<>();
        try {
            String text = null;
            int exit = -1;
            // git exited 127 (its exec failed) for ripgrep and svelte under load, and derive said "no workflow
            // files": only git's own "no such path" (128) means none; anything else is retried, then named
            for (int attempt = 0; attempt < 3 && text == null; attempt++) {
                if (attempt > 0) Thread.sleep(2000L * attempt);
                Process p = new ProcessBuilder("git", "-C", repo.toString(), "ls-tree", "--name-only", commit + ":.github/workflows")
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
                String t = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                exit = p.waitFor(60, TimeUnit.SECONDS) ? p.exitValue() : -1;
                if (exit == 0) text = t;
                else if (exit == 128) return out;
            }
            if (text == null) {
                throw new IllegalStateException("git ls-tree " + commit + ":.github/workflows in " + repo + " failed (exit "
                        + exit + ", three tries): not a statement that there are no workflows");
            }
            for (String name : text.split("\n")) {
                if (name.endsWith(".yml") || name.endsWith(".yaml")) {
                    out.add(".github/workflows/" + name.strip());
                }
            }
        } catch (IOException e) {
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return out;
        }
        java.util.Map<String, Integer> filtered = new java.util.HashMap<>();
        java.util.Map<String, Integer> offPush = new java.util.HashMap<>();
        for (String f : out) {
            String text = show(repo, commit, f);
            filtered.put(f, pathFiltered(text) ? 1 : 0);
            offPush.put(f, text == null || runsOnPushOrPullRequest(text) ? 0 : 1);
        }
        out.sort(Comparator.<String, Integer>comparing(offPush::get).thenComparingInt(WorkflowFinder::rank).thenComparing(filtered::get)
                .thenComparing(Comparator.naturalOrder()));
        return out;
    }

    /**
     * Whether the workflow's triggers run it only when some paths change ({@code paths:} before {@code jobs:}): such a
     * workflow tests a part of the project (yt-dlp's challenge-tests.yml: the JS challenge solvers), while one without
     * runs on every push and pull request (yt-dlp's quick-test.yml: "required checks ... for EVERY pull_request").
     * Within a name rank the unfiltered one comes first.
     */
    static boolean pathFiltered(String text) {
        if (text == null) return false;
        java.util.regex.Matcher jobs = java.util.regex.Pattern.compile("(?m)^jobs\\s*:").matcher(text);
        String triggers = jobs.find() ? text.substring(0, jobs.start()) : text;
        return java.util.regex.Pattern.compile("(?m)^\\s+paths\\s*:").matcher(triggers).find();
    }

    /**
     * Whether a push or a pull request starts the workflow. One that only a schedule, a dispatch or a release starts
     * is a chore (sherlock's exclusions.yml: a nightly list update that runs some tests to build it), not the checks
     * a change must pass; it comes after every workflow that runs on push or pull request, whatever its name.
     */
    static boolean runsOnPushOrPullRequest(String text) {
        String noComments = text.replaceAll("(?m)^\\s*#.*$", "").replaceAll("\\s#.*", "");
        java.util.regex.Matcher jobs = java.util.regex.Pattern.compile("(?m)^jobs\\s*:").matcher(noComments);
        String triggers = jobs.find() ? noComments.substring(0, jobs.start()) : noComments;
        java.util.regex.Matcher on = java.util.regex.Pattern.compile("(?m)^['\"]?(on|true)['\"]?\\s*:").matcher(triggers);
        if (!on.find()) return true; // no trigger block found: nothing to rank it down for
        return java.util.regex.Pattern.compile("(?<![\\w-])(push|pull_request|pull_request_target|merge_group)(?![\\w-])")
                .matcher(triggers.substring(on.start())).find();
    }

    private static String show(Path repo, String commit, String file) {
        try {
            Process p = new ProcessBuilder("git", "-C", repo.toString(), "show", commit + ":" + file)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0 ? text : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * The test steps derive kept read secrets (StepPlanner notes each `uses secrets.X`): MetaGPT's fulltest.yaml decodes
     * API keys into config files before pytest, its unittest.yaml copies the repository's test config. A workflow whose
     * tests need none comes first; one that reads them is still taken when no other tests.
     */
    private static boolean testsReadSecrets(Derivation d) {
        return d.steps().stream().anyMatch(s -> s.decision() == Disposition.TEST
                && s.notes().stream().anyMatch(n -> n.startsWith("uses secrets.")));
    }

    /** The job derive chose runs on macOS or Windows in CI (WorkflowDeriver says so in a note). */
    private static boolean runsElsewhere(Derivation d) {
        return d.notes().stream().anyMatch(n -> n.startsWith("the job runs on ") && n.contains("here it runs on Linux"));
    }

    /**
     * test(s).yml first, then other files named for testing, then CI, then the rest (release, docs and lint workflows
     * last): fastapi's test-redistribute.yml sorted before its test.yml.
     */
    private static int rank(String file) {
        String n = file.substring(file.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT);
        if (n.matches("tests?\\.ya?ml")) {
            return 0;
        }
        if (n.contains("test")) {
            return 1;
        }
        if (n.startsWith("ci") || n.contains("main") || n.contains("build") || n.contains("check")) {
            return 2;
        }
        if (n.contains("release") || n.contains("publish") || n.contains("doc") || n.contains("lint")
                || n.contains("label") || n.contains("bench") || n.contains("codeql") || n.contains("stale")) {
            return 4;
        }
        return 3;
    }
}
