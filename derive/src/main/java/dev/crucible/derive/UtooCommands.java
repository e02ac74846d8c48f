package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * utoo ({@code utooland/setup-utoo}, then {@code ut}): an npm-compatible client with npm's commands, which this
 * machine does not have (ant-design: "ut: command not found" in setup). Its lines run with npm, which reads the same
 * package.json and the machine's npm configuration: {@code ut} and {@code ut install} are {@code npm install},
 * {@code ut run S} and {@code ut S} (a package.json script) are {@code npm run S}, {@code ut x} is {@code npx}.
 * A line with any other utoo command is left as written (and fails as before, with its name).
 */
final class UtooCommands {
    /** utoo's own commands that are not scripts (beside install, run and x, which map). */
    private static final Set<String> BUILTINS = Set.of("uninstall", "un", "update", "up", "list", "ls", "clean", "deps",
            "view", "info", "config", "rebuild", "link", "help", "login", "logout", "publish", "pm-pack", "version", "-v", "--version");

    private UtooCommands() {
    }

    /** The script with each {@code ut} line written for npm; the same string when it has none. */
    static String toNpm(String script) {
        if (script == null || !script.matches("(?s)(.*\\n)?\\s*ut(\\s.*)?(\\n.*)?")) return script;
        List<String> out = new ArrayList<>();
        for (String raw : script.split("\n", -1)) {
            out.add(line(raw));
        }
        return String.join("\n", out);
    }

    private static String line(String raw) {
        String indent = raw.substring(0, raw.length() - raw.stripLeading().length());
        String[] w = raw.strip().split("\\s+", 3);
        if (w.length == 0 || !w[0].equals("ut")) return raw;
        String sub = w.length > 1 ? w[1] : "";
        String rest = w.length > 2 ? " " + w[2] : "";
        if (sub.isEmpty() || sub.equals("install") || sub.equals("i")) return indent + "npm install" + (sub.isEmpty() ? "" : rest);
        if (sub.startsWith("-") || BUILTINS.contains(sub)) return raw;
        if (sub.equals("x")) return indent + "npx" + rest;
        if (sub.equals("run")) return indent + "npm run" + rest;
        return indent + "npm run " + sub + rest;
    }
}
