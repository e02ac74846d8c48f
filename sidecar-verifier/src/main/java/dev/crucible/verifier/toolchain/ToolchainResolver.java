package dev.crucible.verifier.toolchain;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Matches {@code spec.setup.toolchains} against what this machine has. Nothing is substituted
 * silently: each choice that is not what was asked carries a warning. Python: the nearest installed
 * interpreter. Go: the installed one when it matches, else that exact release through the Go module
 * proxy's toolchain modules ({@code GOTOOLCHAIN}, fetched at setup). Rust: an installed rustup
 * toolchain (nightly when asked; rustup's dist server is not assumed reachable). Node: the nearest
 * installed. Python project tools (uv, pdm, poetry, hatch, nox, tox): from the package index into the
 * prefix ({@link PythonTools}). Languages present here but not asked for get their default, so every phase finds them.
 */
public final class ToolchainResolver {
    /** Requests this runtime matches; anything else is reported as not provisioned. */
    static final List<String> KNOWN = List.of("python", "go", "rust", "node");

    /**
     * One language's toolchain. {@code bin}: folders for PATH, first first; {@code roots}: folders a
     * sandbox must show read-only; {@code goToolchain}: a Go release to fetch at setup (null: none).
     */
    public record Choice(String language, String wanted, String used, List<Path> bin, List<Path> roots, Map<String, String> env,
                         String warning, String goToolchain) {}

    /** {@code python}: the interpreter the environment's venv is made from (null when there is none). */
    public record Resolution(List<Choice> choices, List<String> warnings, InstalledToolchains.Python python) {}

    private ToolchainResolver() {}

    public static Resolution resolve(Map<String, String> wanted, InstalledToolchains m) {
        Map<String, String> w = new LinkedHashMap<>();
        if (wanted != null) wanted.forEach((k, v) -> w.put(k.strip().toLowerCase(), v == null ? "" : v.strip()));
        List<Choice> out = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        InstalledToolchains.Python py = python(w.get("python"), m, out);
        if (m.go() != null || w.containsKey("go")) go(w.get("go"), m, out);
        if (!m.rusts().isEmpty() || w.containsKey("rust")) rust(w.get("rust"), m, out);
        if (!m.nodes().isEmpty() || w.containsKey("node")) node(w.get("node"), m, out);
        w.forEach((k, v) -> {
            if (PythonTools.isTool(k)) out.add(tool(k, v, py));
        });
        for (Choice c : out) if (c.warning() != null) warnings.add(c.warning());
        w.forEach((k, v) -> {
            if (!KNOWN.contains(k) && !PythonTools.isTool(k)) warnings.add("toolchain " + k + " " + v + ": not provisioned by crucible; whatever this machine has on PATH is used");
        });
        return new Resolution(List.copyOf(out), List.copyOf(warnings), py);
    }

    /**
     * Whether {@code language} at {@code version} runs here without a substitution (a Go release from
     * 1.21 on counts: it is fetched at setup); languages this runtime does not match count as available.
     */
    public static boolean available(String language, String version, InstalledToolchains m) {
        if (!KNOWN.contains(language)) return true;
        return resolve(Map.of(language, version), m).choices().stream()
                .filter(c -> c.language().equals(language)).allMatch(c -> c.warning() == null && c.used() != null);
    }

    /** A Python project tool (uv, poetry, …): installed from the package index at provisioning ({@link PythonTools}). */
    private static Choice tool(String name, String wanted, InstalledToolchains.Python py) {
        try {
            String req = PythonTools.requirement(name, wanted);
            String warning = py == null ? name + " " + wanted + ": no Python interpreter here to install it with" : null;
            return new Choice(name, wanted, py == null ? null : req, List.of(), List.of(), Map.of(), warning, null);
        } catch (IllegalArgumentException e) {
            return new Choice(name, wanted, null, List.of(), List.of(), Map.of(), e.getMessage() + "; whatever this machine has on PATH is used", null);
        }
    }

    private static InstalledToolchains.Python python(String wanted, InstalledToolchains m, List<Choice> out) {
        if (m.pythons().isEmpty() && m.defaultPython() == null) {
            if (wanted != null) out.add(new Choice("python", wanted, null, List.of(), List.of(), Map.of(), "python " + wanted + ": no Python interpreter is installed here", null));
            return null;
        }
        InstalledToolchains.Python def = m.defaultPython() != null ? m.defaultPython() : m.pythons().get(m.pythons().size() - 1);
        InstalledToolchains.Python chosen = def;
        String warning = null;
        if (wanted != null && !Version.any(wanted)) {
            Optional<Version> v = Version.parse(wanted.replaceFirst("-dev$", ""));
            if (v.isEmpty()) {
                warning = "python " + wanted + ": not an interpreter version this runtime can match; used " + def.version() + " (" + def.executable() + ")";
            } else if (!def.version().matches(v.get())) {
                chosen = Version.nearest(v.get(), m.pythons(), InstalledToolchains.Python::version).orElse(def);
                if (!chosen.version().matches(v.get())) {
                    warning = "python " + wanted + " is not installed: used the nearest, " + chosen.version() + " (" + chosen.executable() + ")";
                }
            }
        }
        Map<String, String> env = new LinkedHashMap<>();
        if (chosen.pyenvName() != null) env.put("PYENV_VERSION", chosen.pyenvName());
        List<Path> roots = chosen.pyenvName() != null ? List.of(chosen.root()) : List.of();
        out.add(new Choice("python", wanted, chosen.version().toString(), List.of(chosen.executable().getParent()), roots, env, warning, null));
        return chosen;
    }

    private static void go(String wanted, InstalledToolchains m, List<Choice> out) {
        if (m.go() == null) {
            out.add(new Choice("go", wanted, null, List.of(), List.of(), Map.of(), "go " + wanted + ": Go is not installed here", null));
            return;
        }
        Path bin = m.go().goroot().resolve("bin");
        Optional<Version> v = wanted == null || Version.any(wanted) ? Optional.empty() : Version.parse(wanted);
        if (v.isEmpty() || m.go().version().matches(v.get())) {
            String warning = wanted != null && v.isEmpty() && !Version.any(wanted)
                    ? "go " + wanted + ": not a release this runtime can match; used the installed " + m.go().version() : null;
            out.add(new Choice("go", wanted, m.go().version().toString(), List.of(bin), List.of(m.go().goroot()), Map.of("GOTOOLCHAIN", "local"), warning, null));
            return;
        }
        Version want = v.get();
        if (want.part(0) == 1 && want.part(1) >= 21) {
            // an exact release from the Go module proxy's golang.org/toolchain modules; a bare 1.22 is resolved to its newest patch at setup
            String release = "go" + want + (want.parts().size() == 2 ? ".x" : "");
            out.add(new Choice("go", wanted, want.toString(), List.of(bin), List.of(m.go().goroot()), Map.of("GOTOOLCHAIN", release), null, release));
            return;
        }
        out.add(new Choice("go", wanted, m.go().version().toString(), List.of(bin), List.of(m.go().goroot()), Map.of("GOTOOLCHAIN", "local"),
                "go " + wanted + ": releases before 1.21 have no toolchain module to fetch; used the installed " + m.go().version(), null));
    }

    private static void rust(String wanted, InstalledToolchains m, List<Choice> out) {
        if (m.rusts().isEmpty()) {
            out.add(new Choice("rust", wanted, null, List.of(), List.of(), Map.of(), "rust " + wanted + ": no rustup toolchain is installed here", null));
            return;
        }
        InstalledToolchains.Rust def = m.rusts().stream().filter(r -> r.name().equals(m.rustDefault()) || r.channel().equals(m.rustDefault()))
                .findFirst().orElse(m.rusts().stream().filter(r -> r.channel().equals("stable")).findFirst().orElse(m.rusts().get(0)));
        InstalledToolchains.Rust chosen = def;
        String warning = null;
        String w = wanted == null ? "" : wanted.toLowerCase();
        if (w.startsWith("nightly") || w.startsWith("beta")) {
            String channel = w.startsWith("nightly") ? "nightly" : "beta";
            Optional<InstalledToolchains.Rust> r = m.rusts().stream().filter(x -> x.channel().startsWith(channel)).findFirst();
            if (r.isPresent()) {
                chosen = r.get();
                if (!w.equals(channel) && !chosen.channel().equals(w)) warning = "rust " + wanted + " is not installed: used " + chosen.channel() + " " + chosen.version();
            } else {
                warning = "rust " + wanted + ": no " + channel + " toolchain is installed (rustup's dist server is not reachable here): used " + def.channel() + " " + def.version();
            }
        } else if (w.equals("stable") || w.equals("latest")) {
            // the stable channel, not rustup's default: a machine's default may be pinned older (1.85 here) than a
            // crate's rust-version, while CI's "stable" is today's
            chosen = m.rusts().stream().filter(x -> x.channel().equals("stable")).findFirst()
                    .or(() -> m.rusts().stream().filter(x -> !x.channel().startsWith("nightly") && !x.channel().startsWith("beta"))
                            .max(java.util.Comparator.comparing(InstalledToolchains.Rust::version)))
                    .orElse(def);
        } else if (!w.isEmpty() && !Version.any(w)) {
            Optional<Version> v = Version.parse(w);
            List<InstalledToolchains.Rust> stable = m.rusts().stream().filter(x -> !x.channel().startsWith("nightly") && !x.channel().startsWith("beta")).toList();
            if (v.isEmpty() || stable.isEmpty()) {
                warning = "rust " + wanted + ": not a toolchain this runtime can match; used " + def.channel() + " " + def.version();
            } else {
                chosen = Version.nearest(v.get(), stable, InstalledToolchains.Rust::version).orElse(def);
                if (!chosen.version().matches(v.get())) {
                    warning = "rust " + wanted + " is not installed (rustup's dist server is not reachable here): used the nearest, "
                            + chosen.channel() + " " + chosen.version();
                }
            }
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put("RUSTUP_TOOLCHAIN", chosen.name());
        env.put("RUSTUP_HOME", m.rustupHome().toString());
        out.add(new Choice("rust", wanted, chosen.channel() + " " + chosen.version(), List.of(chosen.dir().resolve("bin")), List.of(chosen.dir()), env, warning, null));
    }

    private static void node(String wanted, InstalledToolchains m, List<Choice> out) {
        if (m.nodes().isEmpty()) {
            out.add(new Choice("node", wanted, null, List.of(), List.of(), Map.of(), "node " + wanted + ": Node is not installed here", null));
            return;
        }
        InstalledToolchains.Node chosen = m.nodes().get(0);
        String warning = null;
        Optional<Version> v = wanted == null || Version.any(wanted) ? Optional.empty() : Version.parse(wanted);
        if (v.isPresent()) {
            chosen = Version.nearest(v.get(), m.nodes(), InstalledToolchains.Node::version).orElse(chosen);
            if (!chosen.version().matches(v.get())) warning = "node " + wanted + " is not installed: used the nearest, " + chosen.version();
        } else if (wanted != null && !Version.any(wanted)) {
            warning = "node " + wanted + ": not a version this runtime can match; used " + chosen.version();
        }
        Path root = chosen.bin().getParent();
        out.add(new Choice("node", wanted, chosen.version().toString(), List.of(chosen.bin()), List.of(root), Map.of(), warning, null));
    }
}
