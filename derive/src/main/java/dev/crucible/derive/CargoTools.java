package dev.crucible.derive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code taiki-e/install-action}: the cargo subcommands it installs (cargo-hack, cargo-nextest,
 * cargo-llvm-cov ...) become {@code cargo install --locked} in setup, so a test step such as
 * {@code cargo hack test} finds them. Other tools it knows (not cargo subcommands) are dropped and named.
 */
final class CargoTools {
    private CargoTools() {
    }

    /**
     * @param key the action, lower-cased, possibly with the tool as its path ({@code taiki-e/install-action/nextest})
     */
    static ActionMapping.Outcome install(String uses, String key, Map<String, String> with) {
        String tools = with.get("tool");
        if ((tools == null || tools.isBlank()) && key.startsWith("taiki-e/install-action/")) {
            tools = key.substring("taiki-e/install-action/".length());
        }
        if (tools == null || tools.isBlank()) {
            return ActionMapping.Outcome.dropped(uses + ": no tool named; nothing to install");
        }
        List<String> crates = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (String t : tools.split("[,\\s]+")) {
            if (t.isBlank()) {
                continue;
            }
            String name = t.contains("@") ? t.substring(0, t.indexOf('@')) : t;
            String version = t.contains("@") ? t.substring(t.indexOf('@') + 1) : null;
            if (name.equals("nextest")) {
                name = "cargo-nextest";
            }
            if (!name.startsWith("cargo-")) {
                skipped.add(t);
                continue;
            }
            crates.add(version == null || version.equals("latest") ? name
                    : name + "@" + (version.matches("\\d+(\\.\\d+)?") ? "^" + version : version));
        }
        if (crates.isEmpty()) {
            return ActionMapping.Outcome.dropped(uses + ": installs " + String.join(", ", skipped)
                    + ", which is not a cargo subcommand: add it to setup if the tests need it");
        }
        // One `cargo install` per crate: a version (name@ver) applies to one crate only.
        List<String> commands = new ArrayList<>();
        for (String c : crates) {
            String bin = c.contains("@") ? c.substring(0, c.indexOf('@')) : c;
            commands.add("command -v " + bin + " >/dev/null || cargo install --locked " + c);
        }
        return new ActionMapping.Outcome(Disposition.SETUP, uses + ": installs " + String.join(", ", crates)
                + " with cargo install" + (skipped.isEmpty() ? "" : "; not installed: " + String.join(", ", skipped)),
                null, null, String.join("\n", commands), null);
    }

    /**
     * {@code actions-rs/cargo} ({@code command: test}, {@code args: …}, {@code toolchain: …}) is the cargo command it
     * runs, as a run step would write it (rustdesk's tests); cross is not available here, so {@code use-cross} runs
     * cargo itself. Null for any other action.
     */
    static String actionsRsCargo(String uses, Map<String, String> with) {
        String action = (uses.contains("@") ? uses.substring(0, uses.indexOf('@')) : uses).toLowerCase(java.util.Locale.ROOT);
        if (!action.equals("actions-rs/cargo")) return null;
        String command = with.getOrDefault("command", "").strip();
        if (command.isEmpty()) return null;
        String toolchain = with.getOrDefault("toolchain", "").strip();
        String args = with.getOrDefault("args", "").replaceAll("\\s+", " ").strip();
        return ("cargo " + (toolchain.isEmpty() ? "" : "+" + toolchain + " ") + command + " " + args).strip();
    }
}
