package dev.crucible.derive;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a job checks its own repository out ({@code actions/checkout} with {@code path: P}): its steps then run from the
 * folder above, and name the repository {@code P}: {@code cd P}, {@code working-directory: P/sub}, {@code $GITHUB_WORKSPACE/P}.
 * Derive's workspace is the repository itself, so each of those becomes the workspace's root (moby/moby's buildkit.yml
 * failed setup with "cd moby: No such file or directory"). A checkout of another repository into a folder is left alone:
 * it is not fetched (ActionMapping says so).
 */
final class CheckoutPath {
    private final String path;
    private final Pattern cd;
    private final Pattern workspace;

    private CheckoutPath(String path) {
        this.path = path;
        String p = Pattern.quote(path);
        // `cd P` or `cd P/sub` as a command of its own: at a line's start or after &&, ||, ;
        this.cd = Pattern.compile("(^|&&|\\|\\||;)([ \\t]*)cd[ \\t]+([\"']?)(?:\\./)?" + p + "(/[^\\s\"';&|)]*)?\\3(?=[\\s;&|)]|$)",
                Pattern.MULTILINE);
        this.workspace = Pattern.compile("(\\$\\{?GITHUB_WORKSPACE\\}?)/(?:\\./)?" + p + "(?=[/\"'\\s;&|)]|$)");
    }

    /** The job's own checkout folder, or null when it checks out at the workspace's root (or only other repositories). */
    static CheckoutPath of(WorkflowJob job) {
        for (WorkflowStep s : job.steps()) {
            String uses = s.uses() == null ? "" : s.uses().toLowerCase(Locale.ROOT);
            if (!uses.startsWith("actions/checkout@") && !uses.equals("actions/checkout")) continue;
            String repository = s.with().get("repository");
            if (repository != null && !repository.replace(" ", "").equals("${{github.repository}}")) continue;
            String p = s.with().get("path");
            if (p == null) return null;
            p = folder(p);
            // a folder name as written: an expression or a way out is not guessed at
            if (p.isEmpty() || p.equals(".") || p.contains("${{") || p.startsWith("/") || p.contains("..")) return null;
            return new CheckoutPath(p);
        }
        return null;
    }

    /** A folder as written, without a leading ./ or trailing slashes. */
    private static String folder(String written) {
        return written.strip().replaceFirst("^\\./", "").replaceFirst("/+$", "");
    }

    String path() {
        return path;
    }

    /** A step's working directory relative to the repository: null for its root, unchanged when outside the checkout. */
    String rebase(String workingDirectory) {
        if (workingDirectory == null) return null;
        String wd = folder(workingDirectory);
        if (wd.equals(path)) return null;
        if (wd.startsWith(path + "/")) return wd.substring(path.length() + 1);
        return workingDirectory;
    }

    /** True when a step with this (written) working directory runs in the folder above the checkout. */
    boolean above(String writtenWorkingDirectory) {
        return writtenWorkingDirectory == null || writtenWorkingDirectory.strip().replaceFirst("/+$", "").matches("\\.?|\\$\\{?GITHUB_WORKSPACE\\}?");
    }

    /** A script's names of the checkout as the workspace: {@code cd P/sub} (only from the folder above) and the workspace variable. */
    String rewrite(String script, boolean fromAbove) {
        if (script == null) return null;
        String out = workspace.matcher(script).replaceAll(m -> Matcher.quoteReplacement(m.group(1)));
        if (!fromAbove) return out;
        out = cd.matcher(out).replaceAll(m -> {
            String sub = m.group(4) == null ? "" : m.group(4).replaceFirst("^/+", "");
            return Matcher.quoteReplacement(m.group(1) + m.group(2) + "cd " + (sub.isEmpty() ? "." : m.group(3) + sub + m.group(3)));
        });
        // `cd P && go test ./...` is then the runner line alone, which the grader can instrument per test
        return out.replaceAll("(?m)^([ \\t]*)cd \\.[ \\t]*&&[ \\t]*", "$1").replaceAll("(?m)^[ \\t]*cd \\.[ \\t]*(\\n|$)", "");
    }
}
