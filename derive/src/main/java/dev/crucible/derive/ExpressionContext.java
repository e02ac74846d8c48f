package dev.crucible.derive;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@code ${{ }}} expressions can see when a workflow is derived locally rather than run on GitHub.
 * matrix and env are known exactly; runner describes the Linux machine the environment runs on;
 * secrets and configuration variables are never known, they become shell variables the user provides;
 * everything about the triggering event ({@code github.event}, {@code steps}, inputs) is unknown, so
 * conditions on it are reported rather than guessed; {@code needs} holds the needed jobs' outputs that could
 * be resolved ({@link ComputedMatrix#neededOutputs}).
 */
@SuppressWarnings("unchecked")
final class ExpressionContext {
    /** A value that cannot be known before the workflow runs on GitHub. */
    enum Unknown { VALUE }

    /**
     * A value that exists only in the running environment, written into scripts as {@code ${name}}.
     *
     * @param secret whether it came from {@code secrets.*} (never copied) rather than e.g. github.workspace
     */
    record ShellVariable(String name, boolean secret, String origin) {
        String reference() {
            return "${" + name + "}";
        }
    }

    /** A context object whose absent properties are unknown rather than null (github.*). */
    static final class OpenMap extends LinkedHashMap<String, Object> {
    }

    private final Map<String, Object> roots = new LinkedHashMap<>();

    ExpressionContext(Map<String, ?> matrix, Map<String, String> env, String commit) {
        roots.put("matrix", new LinkedHashMap<>(matrix));
        roots.put("env", new LinkedHashMap<String, Object>(env));
        Map<String, Object> runner = new LinkedHashMap<>();
        runner.put("os", "Linux");
        runner.put("arch", "X64");
        runner.put("name", "crucible");
        runner.put("environment", "self-hosted");
        runner.put("temp", new ShellVariable("RUNNER_TEMP", false, "runner.temp"));
        runner.put("tool_cache", new ShellVariable("RUNNER_TOOL_CACHE", false, "runner.tool_cache"));
        roots.put("runner", runner);
        OpenMap github = new OpenMap();
        github.put("workspace", new ShellVariable("GITHUB_WORKSPACE", false, "github.workspace"));
        github.put("token", new ShellVariable("GITHUB_TOKEN", true, "github.token"));
        if (commit != null) {
            github.put("sha", commit);
        }
        github.put("server_url", "https://github.com");
        roots.put("github", github);
    }

    /** The same context with a different env (steps see job env plus their own). */
    ExpressionContext withEnv(Map<String, String> env) {
        ExpressionContext c = new ExpressionContext(Map.of(), Map.of(), null);
        c.roots.putAll(roots);
        c.roots.put("env", new LinkedHashMap<String, Object>(env));
        return c;
    }

    /** The same context with the {@code needs} outputs that could be resolved (the rest stay unknown). */
    ExpressionContext withNeeds(Map<String, Object> needs) {
        ExpressionContext c = withEnv(Map.of());
        c.roots.put("env", roots.get("env"));
        c.roots.put("needs", needs);
        return c;
    }

    /**
     * The context inside a composite action: its resolved {@code inputs}, and {@code github.action_path}
     * as the action's directory under the workspace.
     */
    ExpressionContext forAction(Map<String, ?> inputs, String actionDir) {
        ExpressionContext c = withEnv(Map.of());
        c.roots.put("env", roots.get("env"));
        c.roots.put("inputs", new LinkedHashMap<String, Object>(inputs));
        OpenMap github = new OpenMap();
        github.putAll((Map<String, Object>) roots.get("github"));
        // Written into scripts as text; the shell expands it where the step runs.
        github.put("action_path", "${GITHUB_WORKSPACE}/" + actionDir);
        c.roots.put("github", github);
        return c;
    }

    /** The value of a top-level name; secrets and vars resolve lazily per property in the evaluator. */
    Object root(String name) {
        String key = name.toLowerCase(java.util.Locale.ROOT);
        if (key.equals("secrets") || key.equals("vars")) {
            return key;
        }
        Object v = roots.get(key);
        return v != null ? v : Unknown.VALUE;
    }
}
