package dev.crucible.derive;

import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Maps {@code uses:} steps to local equivalents where one is well defined: checkout is the workspace
 * itself, setup-* actions become toolchain requirements, caches are irrelevant; everything else is
 * dropped and reported so the user can judge whether the tests needed it.
 */
final class ActionMapping {
    /**
     * @param disposition     TOOLCHAIN, SETUP, LINT or DROPPED
     * @param toolchain       toolchain name (python, node, java, go, rust ...) when TOOLCHAIN
     * @param version         its version as the workflow asks for it
     * @param command         the shell command for SETUP or LINT outcomes
     * @param setupCommand    a command the LINT outcome needs installed first, or null
     */
    record Outcome(Disposition disposition, String reason, String toolchain, String version, String command,
            String setupCommand) {
        static Outcome dropped(String reason) {
            return new Outcome(Disposition.DROPPED, reason, null, null, null, null);
        }
    }

    /** action (owner/name[/path], no @ref) → toolchain name and the input(s) that carry its version. */
    private static final Map<String, String[]> TOOLCHAINS = Map.ofEntries(
            Map.entry("actions/setup-python", new String[] {"python", "python-version", "python-version-file"}),
            Map.entry("actions/setup-node", new String[] {"node", "node-version", "node-version-file"}),
            Map.entry("actions/setup-java", new String[] {"java", "java-version", "java-version-file"}),
            Map.entry("actions/setup-go", new String[] {"go", "go-version", "go-version-file"}),
            Map.entry("WillAbides/setup-go-faster", new String[] {"go", "go-version", null}),
            Map.entry("actions/setup-dotnet", new String[] {"dotnet", "dotnet-version", "global-json-file"}),
            Map.entry("ruby/setup-ruby", new String[] {"ruby", "ruby-version", null}),
            Map.entry("dtolnay/rust-toolchain", new String[] {"rust", "toolchain", null}),
            Map.entry("actions-rs/toolchain", new String[] {"rust", "toolchain", null}),
            Map.entry("astral-sh/setup-uv", new String[] {"uv", "version", null}),
            // Python project tools: the runtime installs them from the package index (sidecar PythonTools)
            Map.entry("snok/install-poetry", new String[] {"poetry", "version", null}),
            Map.entry("abatilo/actions-poetry", new String[] {"poetry", "poetry-version", null}),
            Map.entry("pdm-project/setup-pdm", new String[] {"pdm", "version", null}),
            Map.entry("wntrblm/nox", new String[] {"nox", "nox-version", null}),
            Map.entry("pnpm/action-setup", new String[] {"pnpm", "version", null}),
            Map.entry("oven-sh/setup-bun", new String[] {"bun", "bun-version", null}),
            Map.entry("denoland/setup-deno", new String[] {"deno", "deno-version", null}),
            Map.entry("erlef/setup-beam", new String[] {"elixir", "elixir-version", null}),
            Map.entry("shivammathur/setup-php", new String[] {"php", "php-version", null}),
            Map.entry("haskell-actions/setup", new String[] {"ghc", "ghc-version", null}),
            Map.entry("mlugg/setup-zig", new String[] {"zig", "version", null}),
            Map.entry("conda-incubator/setup-miniconda", new String[] {"python", "python-version", null}));

    private static final Pattern CI_ONLY_ACTION = Pattern.compile(
            "(actions/(upload|download)-artifact|codecov/.*|coverallsapp/.*|actions/github-script|peaceiris/.*"
                    + "|softprops/.*|docker/.*|actions/(deploy|configure)-pages|actions/upload-pages-artifact"
                    + "|actions/labeler|actions/stale|github/codeql-action/.*|actions/dependency-review-action"
                    + "|aws-actions/.*|google-github-actions/.*|azure/.*|pypa/gh-action-pypi-publish"
                    + "|actions/attest.*|sigstore/.*|EnricoMi/.*|dorny/test-reporter|mikepenz/.*"
                    + "|actions/create-release|ncipollo/.*|slackapi/.*|8398a7/.*)");
    private static final Pattern CACHE_ACTION = Pattern.compile(
            "(actions/cache(/restore|/save)?|Swatinem/rust-cache|gradle/actions/setup-gradle|gradle/gradle-build-action"
                    + "|actions/setup-(python|node)/cache|hendrikmuhs/ccache-action|mozilla-actions/sccache-action)");

    private ActionMapping() {
    }

    /** The toolchain a setup action asks for and the input naming its version ({@code [python, python-version]}), or null. */
    static String[] toolchainInput(String uses) {
        String action = (uses.contains("@") ? uses.substring(0, uses.indexOf('@')) : uses).toLowerCase(Locale.ROOT);
        return TOOLCHAINS.entrySet().stream().filter(t -> t.getKey().toLowerCase(Locale.ROOT).equals(action))
                .map(t -> new String[] {t.getValue()[0], t.getValue()[1]}).findFirst().orElse(null);
    }

    /**
     * @param uses     the {@code uses:} value as written (owner/name[/path]@ref, ./local, docker://...)
     * @param with     inputs with expressions already resolved
     * @param readFile reads a repository file at the derived commit, null when absent (for version files)
     */
    static Outcome map(String uses, Map<String, String> with, Function<String, String> readFile) {
        String action = uses.contains("@") ? uses.substring(0, uses.indexOf('@')) : uses;
        String ref = uses.contains("@") ? uses.substring(uses.indexOf('@') + 1) : "";
        if (uses.startsWith("./") || uses.startsWith("docker://")) {
            return Outcome.dropped("runs " + (uses.startsWith("./") ? "a local action" : "a container action")
                    + " (" + uses + ") that has no local equivalent: check whether the tests need what it does");
        }
        String key = action.toLowerCase(Locale.ROOT);
        if (key.equals("actions/checkout")) {
            if (truthy(with.get("submodules"))) {
                return new Outcome(Disposition.SETUP, "actions/checkout with submodules: the workspace is the "
                        + "repository at the commit; its submodules are fetched in setup", null, null,
                        "git submodule update --init" + ("recursive".equals(with.get("submodules")) ? " --recursive" : ""),
                        null);
            }
            String lfs = truthy(with.get("lfs")) ? "; it asked for Git LFS files: run `git lfs pull` if tests need them" : "";
            String other = with.containsKey("repository") ? "; it checks out " + with.get("repository")
                    + ", which is not fetched: add it to setup if the tests need it" : "";
            return Outcome.dropped("actions/checkout: the workspace already is the repository at the commit" + lfs + other);
        }
        if (key.equals("pre-commit/action")) {
            String args = with.getOrDefault("extra_args", "--all-files");
            return new Outcome(Disposition.LINT, "pre-commit/action: runs the repository's pre-commit hooks",
                    null, null, "pre-commit run --show-diff-on-failure --color=never " + args,
                    "python3 -m pip install pre-commit");
        }
        if (key.equals("golangci/golangci-lint-action")) {
            String version = with.getOrDefault("version", "latest");
            String module = version.startsWith("v2") ? "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
                    : "github.com/golangci/golangci-lint/cmd/golangci-lint";
            String dir = with.get("working-directory");
            String run = "golangci-lint run" + (with.containsKey("args") ? " " + with.get("args") : "");
            return new Outcome(Disposition.LINT, "golangci-lint-action: runs golangci-lint " + version, null, null,
                    dir == null ? run : "cd " + ShellScripts.quote(dir) + " && " + run,
                    "command -v golangci-lint >/dev/null || go install " + module + "@" + version);
        }
        if (key.equals("utooland/setup-utoo")) {
            return Outcome.dropped(uses + ": installs utoo, whose `ut` commands run with npm here (UtooCommands)");
        }
        if (key.equals("taiki-e/install-action") || key.startsWith("taiki-e/install-action/")) {
            return CargoTools.install(uses, key, with);
        }
        for (Map.Entry<String, String[]> t : TOOLCHAINS.entrySet()) {
            if (key.equals(t.getKey().toLowerCase(Locale.ROOT))) {
                return toolchain(uses, ref, t.getValue(), with, readFile);
            }
        }
        if (CACHE_ACTION.matcher(action).matches()) {
            return Outcome.dropped(action + ": caching only speeds CI up; nothing to do locally");
        }
        if (CI_ONLY_ACTION.matcher(action).matches()) {
            return Outcome.dropped(action + ": CI-only (publishing, reporting or artifacts); not needed to run the tests");
        }
        return Outcome.dropped("no local equivalent is known for " + uses
                + ": check whether the tests need what it does and add it to setup if so");
    }

    /**
     * astral-sh/setup-uv's {@code python-version} input: the Python uv and its venv use (LLaMA-Factory: the matrix's
     * 3.13 under setup-uv alone; without this the environment got this machine's default interpreter). Null when not given.
     */
    static Outcome uvPython(String uses, Map<String, String> with) {
        String action = (uses.contains("@") ? uses.substring(0, uses.indexOf('@')) : uses).toLowerCase(Locale.ROOT);
        String v = with.get("python-version");
        if (!action.equals("astral-sh/setup-uv") || v == null || v.isBlank()) {
            return null;
        }
        v = v.strip().lines().findFirst().orElse("").strip();
        return new Outcome(Disposition.TOOLCHAIN, uses + " python-version: needs python " + v, "python", v, null, null);
    }

    private static Outcome toolchain(String uses, String ref, String[] spec, Map<String, String> with,
            Function<String, String> readFile) {
        String name = spec[0];
        String version = with.get(spec[1]);
        String from = spec[1];
        if ((version == null || version.isBlank()) && spec[2] != null && with.get(spec[2]) != null) {
            from = spec[2] + " " + with.get(spec[2]);
            version = versionFromFile(with.get(spec[2]), readFile);
        }
        if ((version == null || version.isBlank()) && name.equals("rust") && !ref.isEmpty()
                && !ref.matches("[0-9a-f]{40}|v\\d.*|master|main")) {
            version = ref;
            from = "@" + ref;
        }
        if (version != null) {
            version = version.strip().lines().findFirst().orElse("").strip();
        }
        if ((version == null || version.isBlank()) && name.equals("rust")) {
            // bat's MSRV job: toolchain: ${{ needs.crate_metadata.outputs.msrv }}, computed by another job. Whatever
            // it is, today's stable builds it (GitHub's runners carry stable); "any" took this machine's rustup default
            // (1.85), older than the crate's rust-version 1.88
            return new Outcome(Disposition.TOOLCHAIN, uses + ": needs rust (no version known here: stable, as GitHub's runners carry)",
                    name, "stable", null, null);
        }
        if (version == null || version.isBlank()) {
            return new Outcome(Disposition.TOOLCHAIN, uses + ": needs " + name + " (no version given: any)",
                    name, "*", null, null);
        }
        return new Outcome(Disposition.TOOLCHAIN, uses + ": needs " + name + " " + version
                + (from.equals(spec[1]) ? "" : " (from " + from + ")"), name, version, null, null);
    }

    private static final Pattern GO_MOD_TOOLCHAIN = Pattern.compile("(?m)^toolchain\\s+go(\\S+)");
    private static final Pattern GO_MOD_GO = Pattern.compile("(?m)^go\\s+(\\S+)");

    /** Reads .python-version, .nvmrc, .tool-versions style files and go.mod. */
    static String versionFromFile(String path, Function<String, String> readFile) {
        String text = readFile.apply(path);
        if (text == null) {
            return null;
        }
        if (path.endsWith("go.mod") || path.endsWith("go.work")) {
            Matcher m = GO_MOD_TOOLCHAIN.matcher(text);
            if (m.find()) {
                return m.group(1);
            }
            m = GO_MOD_GO.matcher(text);
            return m.find() ? m.group(1) : null;
        }
        return text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .map(l -> l.contains(" ") ? l.substring(l.lastIndexOf(' ') + 1) : l)
                .map(l -> l.startsWith("v") && l.length() > 1 && Character.isDigit(l.charAt(1)) ? l.substring(1) : l)
                .findFirst().orElse(null);
    }

    private static boolean truthy(String s) {
        return s != null && (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("recursive"));
    }
}
