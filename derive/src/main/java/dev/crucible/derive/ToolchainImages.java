package dev.crucible.derive;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The cluster image for a job that names no {@code container:}: the official image of the toolchain
 * the tests run on, at the version CI asks for. In a cluster the agent and grading containers run the
 * environment's image, and the grading runner needs {@code python3} (3.8 or later) in it: the python,
 * node and rust images have it (node and rust are built on buildpack-deps, whose development packages
 * bring it in); golang and the JDK images do not, so derive picks them and says that python3 must be
 * added. The local runtime ignores {@code spec.image} (it uses this machine's toolchains).
 */
final class ToolchainImages {

    /** The image chosen, the toolchain it is for, and what a person must know about it. */
    record Pick(String image, String toolchain, String note) {
    }

    /** Which toolchain a recognised runner runs on, so the image follows the tests. */
    private static final Map<String, String> RUNNER_TOOLCHAIN = Map.ofEntries(
            Map.entry("pytest", "python"), Map.entry("py.test", "python"), Map.entry("unittest", "python"),
            Map.entry("go test", "go"), Map.entry("cargo test", "rust"), Map.entry("cargo hack test", "rust"),
            Map.entry("cargo nextest", "rust"), Map.entry("jest", "node"), Map.entry("vitest", "node"),
            Map.entry("mocha", "node"), Map.entry("node --test", "node"));
    private static final Pattern NUMERIC = Pattern.compile("v?(\\d+(?:\\.\\d+){0,2})(?:\\.x)*");

    private ToolchainImages() {
    }

    /**
     * The image for these toolchains, the tests' own first ({@code recognised}: what the verifier's runner
     * was recognised as, may be null); empty when no toolchain has an official image here.
     */
    static Optional<Pick> pick(Map<String, String> toolchains, String recognised) {
        String first = recognised == null ? null : RUNNER_TOOLCHAIN.get(recognised);
        if (first == null && recognised != null && recognised.startsWith("mvn ")) first = "java";
        if (first == null && recognised != null && recognised.startsWith("gradle ")) first = "java";
        List<String> order = new java.util.ArrayList<>();
        if (first != null && toolchains.containsKey(first)) order.add(first);
        toolchains.keySet().stream().filter(t -> !order.contains(t)).forEach(order::add);
        for (String t : order) {
            Optional<Pick> p = image(t, toolchains.get(t));
            if (p.isPresent()) {
                List<String> others = toolchains.keySet().stream().filter(o -> !o.equals(t)).toList();
                String also = others.isEmpty() ? "" : "; the job also asks for " + others + ", which this image may lack";
                return Optional.of(new Pick(p.get().image(), t, p.get().note() + also));
            }
        }
        return Optional.empty();
    }

    /** The official image for one toolchain and CI's version of it. */
    static Optional<Pick> image(String toolchain, String version) {
        String v = version == null ? "" : version.strip();
        return switch (toolchain) {
            case "python" -> Optional.of(new Pick("python:" + tag(v, "3"), toolchain, "python3 and pip included"));
            case "node" -> Optional.of(new Pick("node:" + nodeTag(v), toolchain, "includes python3 (buildpack-deps)"));
            case "rust" -> Optional.of(v.startsWith("nightly")
                    ? new Pick("rustlang/rust:nightly", toolchain, "the Rust project's nightly image; includes python3")
                    : new Pick("rust:" + tag(v.equals("stable") ? "" : v, "latest"), toolchain, "includes python3 (buildpack-deps)"));
            case "go" -> Optional.of(new Pick("golang:" + tag(v.equals("stable") ? "" : v, "latest"), toolchain,
                    "has no python3, which the grading runner needs: build an image FROM it with python3 added, or set spec.image"));
            case "java" -> Optional.of(new Pick("eclipse-temurin:" + tag(v, "21"), toolchain,
                    "has no python3, which the grading runner needs: build an image FROM it with python3 added, or set spec.image"));
            default -> Optional.empty();
        };
    }

    /** {@code 3.12.x} → {@code 3.12}; {@code ^1.21}, {@code >=3.9}, {@code lts/*} and the like → the default. */
    private static String tag(String v, String fallback) {
        Matcher m = NUMERIC.matcher(v);
        return m.matches() ? m.group(1) : fallback;
    }

    /** node: {@code 20.x} → {@code 20}; {@code lts/*} → {@code lts}; {@code *}, {@code latest}, {@code current} → {@code current}. */
    private static String nodeTag(String v) {
        if (v.startsWith("lts")) return "lts";
        if (v.isEmpty() || v.equals("*") || v.equals("latest") || v.equals("current") || v.equals("node")) return "current";
        return tag(v, "lts");
    }
}
