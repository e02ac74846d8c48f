package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A setup line that downloads a browser for browser tests ({@code pnpm playwright install chromium}, {@code npx
 * playwright install --with-deps}, {@code python -m playwright install}, {@code npx @puppeteer/browsers install
 * chrome}): the browser comes from the vendor's CDN, not from a package registry, so on a machine that reaches only
 * its registries the line fails setup and no test runs (svelte: its vitest unit tests never ran for the chromium
 * download). As for an installer the machine lacks ({@link AbsentInstallers}), the line is replaced by a message on
 * stderr naming what was skipped and setup goes on; the tests that need the browser fail at the baseline run and are
 * left out there with that reason. The install scripts of the packages themselves are told to skip it by
 * {@link NodeTools} (PUPPETEER_SKIP_DOWNLOAD, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD). Applied where derive knows the
 * machine (the local CLI), as the apt check is.
 */
final class BrowserInstalls {
    private static final Pattern DOWNLOAD = Pattern.compile(
            "(^|\\s)(playwright|@playwright/test|@puppeteer/browsers|puppeteer)(@\\S+)?\\s+(browsers\\s+)?install(-deps)?(\\s|$)");
    private static final Pattern COMPOUND = Pattern.compile("[;&|`]|\\$\\(");
    /** What may run the download: the tool itself or a runner of package binaries. */
    private static final Set<String> RUNNERS = Set.of("playwright", "npx", "pnpx", "bunx", "pnpm", "yarn", "npm", "bun",
            "python", "python3", "uv", "uvx", "poetry", "pdm", "hatch", "puppeteer");

    private BrowserInstalls() {
    }

    static void apply(PlannedStep p) {
        if (p.disposition == Disposition.SETUP && p.script != null) {
            List<String> skipped = new ArrayList<>();
            String rest = rewrite(p.script, skipped);
            if (!skipped.isEmpty()) {
                p.script = rest;
                p.notes.add(note(p, skipped));
            }
        }
        if (!p.setupLines.isEmpty()) {
            List<String> skipped = new ArrayList<>();
            String rest = rewrite(String.join("\n", p.setupLines), skipped);
            if (!skipped.isEmpty()) {
                p.setupLines.clear();
                rest.lines().filter(l -> !l.isBlank()).forEach(p.setupLines::add);
                p.notes.add(note(p, skipped));
            }
        }
    }

    private static String note(PlannedStep p, List<String> skipped) {
        return "step " + p.step.number() + " downloads a browser from its vendor's host, outside the package registries ("
                + String.join("; ", skipped) + "): setup skips it and says so; tests that need the browser fail at the "
                + "baseline run and are left out with that reason";
    }

    /** The script with each browser-download line replaced by a message on stderr; {@code skipped} gets those lines. */
    static String rewrite(String script, List<String> skipped) {
        StringBuilder out = new StringBuilder();
        for (String line : script.split("\n", -1)) {
            if (downloadsBrowser(line)) {
                skipped.add(line.strip());
                line = "echo " + ShellScripts.quote("crucible: skipped a browser download (its vendor's host is not a package "
                        + "registry; tests that need the browser fail at the baseline): " + line.strip()) + " >&2";
            }
            out.append(line).append('\n');
        }
        return out.toString().stripTrailing();
    }

    /** A simple line whose program is the browser tool or a package-binary runner, asking it to install a browser. */
    static boolean downloadsBrowser(String line) {
        String program = AbsentInstallers.program(line);
        if (program == null || !RUNNERS.contains(program)) return false;
        if (COMPOUND.matcher(line).find()) return false; // a compound line: left as CI has it
        return DOWNLOAD.matcher(line).find();
    }
}
