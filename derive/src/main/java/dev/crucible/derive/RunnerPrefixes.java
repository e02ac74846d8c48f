package dev.crucible.derive;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Environment runners that only wrap the real program: {@code uv run --group dev tox}, {@code uvx --with
 * tox-uv tox -e py}, {@code poetry run pytest}, {@code pipenv run}, {@code pdm run}, {@code hatch run
 * test:cov}. Their own options (some with a value) come before the program, so they are skipped by name:
 * taking {@code dev} in {@code uv run --group dev tox} for the program would hide the test run.
 */
final class RunnerPrefixes {
    /** Options of {@code uv run} / {@code uvx} that take a value (as a separate word). */
    private static final Set<String> UV_WITH_VALUE = Set.of("--group", "--only-group", "--no-group", "--extra",
            "--no-extra", "--with", "--with-editable", "--with-requirements", "--python", "-p", "--package",
            "--directory", "--project", "--env-file", "--index", "--default-index", "--index-url", "-i",
            "--extra-index-url", "--find-links", "-f", "--config-file", "--cache-dir", "--from", "--exclude-newer",
            "--index-strategy", "--keyring-provider", "--resolution", "--prerelease", "--link-mode", "--refresh-package",
            "--reinstall-package", "--upgrade-package", "-P", "--python-platform", "--color", "--script", "-C",
            "--config-setting", "--build-constraints", "--constraints", "--overrides", "--allow-insecure-host");
    private static final Set<String> POETRY_WITH_VALUE = Set.of("-P", "--project", "-C", "--directory");
    private static final Set<String> PDM_WITH_VALUE = Set.of("-p", "--project", "-g", "--global", "--venv");

    /** Marks what {@code hatch run} runs: a script name ({@code test}, {@code lint:all}) or a command. */
    static final String HATCH_SCRIPT = "hatch run";

    private RunnerPrefixes() {
    }

    /** Whether {@code option} of {@code uv run} takes the next word as its value. */
    static boolean takesValue(String option) {
        return UV_WITH_VALUE.contains(option);
    }

    /**
     * Removes one runner prefix from the front of {@code w} (a command's words); true when it did.
     * {@code uv run -m pytest} becomes {@code pytest}; {@code hatch run env:script} keeps only the
     * script reference, which {@link BuildToolCommands#hatchScript} names.
     */
    static boolean strip(List<String> w) {
        if (w.isEmpty()) {
            return false;
        }
        String first = w.get(0).toLowerCase(Locale.ROOT);
        String second = w.size() > 1 ? w.get(1) : "";
        switch (first) {
            case "uv" -> {
                if (!second.equals("run") && !second.equals("tool")) {
                    return false;
                }
                int skip = second.equals("tool") && w.size() > 2 && w.get(2).equals("run") ? 3 : 2;
                if (second.equals("tool") && skip == 2) {
                    return false;
                }
                dropOptions(w, skip, UV_WITH_VALUE, true);
                return true;
            }
            case "uvx", "pipx" -> {
                if (first.equals("pipx") && !second.equals("run")) {
                    return false;
                }
                dropOptions(w, first.equals("pipx") ? 2 : 1, UV_WITH_VALUE, false);
                return true;
            }
            case "poetry", "pipenv", "rye" -> {
                if (!second.equals("run")) {
                    return false;
                }
                dropOptions(w, 2, POETRY_WITH_VALUE, false);
                return true;
            }
            case "pdm" -> {
                if (!second.equals("run")) {
                    return false;
                }
                dropOptions(w, 2, PDM_WITH_VALUE, false);
                return true;
            }
            case "hatch" -> {
                // hatch [-e ENV] run [+py=3.11] [ENV:]SCRIPT ...: the script (or a command) is what runs.
                int i = 1;
                while (i < w.size() && w.get(i).startsWith("-")) {
                    i += w.get(i).equals("-e") || w.get(i).equals("--env") ? 2 : 1;
                }
                if (i >= w.size() || !w.get(i).equals("run")) {
                    return false;
                }
                i++;
                while (i < w.size() && (w.get(i).startsWith("+") || w.get(i).startsWith("-"))) {
                    i++;
                }
                w.subList(0, Math.min(i, w.size())).clear();
                if (!w.isEmpty()) {
                    // A command or a script of the environment: decided by BuildToolCommands.hatchScript.
                    w.add(0, HATCH_SCRIPT);
                }
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /**
     * Drops the runner's words up to {@code from}, then its options; {@code -m MODULE} (uv run only)
     * leaves the module as the program, as {@code python -m} does.
     */
    private static void dropOptions(List<String> w, int from, Set<String> withValue, boolean moduleFlag) {
        w.subList(0, Math.min(from, w.size())).clear();
        while (!w.isEmpty() && w.get(0).startsWith("-")) {
            String opt = w.remove(0);
            if (opt.equals("--")) {
                return;
            }
            if (moduleFlag && (opt.equals("-m") || opt.equals("--module"))) {
                return;
            }
            if (withValue.contains(opt) && !w.isEmpty()) {
                w.remove(0);
            }
        }
    }
}
