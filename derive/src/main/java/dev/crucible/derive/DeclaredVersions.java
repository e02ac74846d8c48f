package dev.crucible.derive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The toolchain versions a project says it supports, for a matrix CI computes at run time: Python's trove
 * classifiers, else {@code requires-python}/{@code python_requires}; go.mod's {@code go}; Cargo.toml's
 * {@code rust-version} (and stable); package.json's {@code engines.node}. An empty list: nothing declared.
 */
final class DeclaredVersions {
    /** CPython 3 minors and Node majors that have had releases: the range a lower bound opens onto. */
    private static final List<Integer> PYTHON_MINORS = List.of(6, 7, 8, 9, 10, 11, 12, 13, 14);
    private static final List<Integer> NODE_MAJORS = List.of(12, 14, 16, 18, 20, 22, 24);
    private static final Pattern CLASSIFIER = Pattern.compile("Programming Language :: Python :: 3\\.(\\d+)\\b");
    private static final Pattern REQUIRES_PYTHON = Pattern.compile(
            "\\b(?:requires-python|python_requires)\\s*=\\s*(?:[\"']([^\"']+)[\"']|([^\"'\\n#]+))");
    private static final Pattern GO = Pattern.compile("(?m)^go\\s+(\\d+\\.\\d+(?:\\.\\d+)?)\\s*$");
    private static final Pattern RUST = Pattern.compile("(?m)^\\s*rust-version\\s*=\\s*[\"']([0-9.]+)[\"']");
    private static final Pattern BOUND = Pattern.compile("(>=|>|<=|<|==|~=|\\^|~)?\\s*v?(\\d+)(?:\\.(\\d+))?");

    private DeclaredVersions() {
    }

    /** @return the versions and the file they come from, or null when the project declares none */
    static Declared of(String toolchain, Function<String, String> readFile) {
        return switch (toolchain) {
            case "python" -> python(readFile);
            case "go" -> single(readFile, "go.mod", GO, false);
            case "rust" -> single(readFile, "Cargo.toml", RUST, true);
            case "node" -> node(readFile);
            default -> null;
        };
    }

    record Declared(List<String> versions, String source) {
    }

    private static Declared python(Function<String, String> readFile) {
        for (String f : List.of("pyproject.toml", "setup.cfg", "setup.py")) {
            String text = readFile.apply(f);
            if (text == null) {
                continue;
            }
            TreeSet<Integer> minors = new TreeSet<>();
            Matcher m = CLASSIFIER.matcher(text);
            while (m.find()) {
                minors.add(Integer.parseInt(m.group(1)));
            }
            if (!minors.isEmpty()) {
                return new Declared(minors.stream().map(n -> "3." + n).toList(), f + " classifiers");
            }
        }
        for (String f : List.of("pyproject.toml", "setup.cfg", "setup.py")) {
            String text = readFile.apply(f);
            Matcher m = text == null ? null : REQUIRES_PYTHON.matcher(text);
            if (m != null && m.find()) {
                String spec = (m.group(1) != null ? m.group(1) : m.group(2)).strip();
                List<Integer> minors = range(spec, 3, PYTHON_MINORS);
                if (!minors.isEmpty()) {
                    return new Declared(minors.stream().map(n -> "3." + n).toList(), f + " requires-python " + spec);
                }
            }
        }
        return null;
    }

    private static Declared node(Function<String, String> readFile) {
        String text = readFile.apply("package.json");
        if (text == null) {
            return null;
        }
        try {
            JsonNode engines = new ObjectMapper().readTree(text).path("engines").path("node");
            if (!engines.isTextual()) {
                return null;
            }
            List<Integer> majors = new ArrayList<>();
            for (String alternative : engines.asText().split("\\|\\|")) {
                for (Integer n : rangeMajors(alternative.strip())) {
                    if (!majors.contains(n)) {
                        majors.add(n);
                    }
                }
            }
            majors.sort(null);
            return majors.isEmpty() ? null
                    : new Declared(majors.stream().map(String::valueOf).toList(), "package.json engines.node " + engines.asText());
        } catch (IOException e) {
            return null;
        }
    }

    private static Declared single(Function<String, String> readFile, String file, Pattern p, boolean andStable) {
        String text = readFile.apply(file);
        Matcher m = text == null ? null : p.matcher(text);
        if (m == null || !m.find()) {
            return null;
        }
        List<String> versions = andStable ? List.of(m.group(1), "stable") : List.of(m.group(1));
        return new Declared(versions, file + " " + m.group(1));
    }

    /** The minors of {@code major} in {@code known} that a specifier such as ">=3.9, <3.13" allows. */
    private static List<Integer> range(String spec, int major, List<Integer> known) {
        int low = known.get(0);
        int high = known.get(known.size() - 1);
        boolean any = false;
        for (String part : spec.split(",")) {
            Matcher m = BOUND.matcher(part.strip());
            if (!m.matches() || Integer.parseInt(m.group(2)) != major || m.group(3) == null) {
                continue;
            }
            any = true;
            int minor = Integer.parseInt(m.group(3));
            String op = m.group(1) == null ? "==" : m.group(1);
            switch (op) {
                case ">=", "~=" -> low = Math.max(low, minor);
                case ">" -> low = Math.max(low, minor + 1);
                case "<" -> high = Math.min(high, minor - 1);
                case "<=" -> high = Math.min(high, minor);
                default -> {
                    low = minor;
                    high = minor;
                }
            }
        }
        int lo = low;
        int hi = high;
        return any ? known.stream().filter(n -> n >= lo && n <= hi).toList() : List.of();
    }

    /** Node majors a single engines range (">=18", "^20", "18.x", ">=16 <21") allows. */
    private static List<Integer> rangeMajors(String spec) {
        int low = 0;
        int high = Integer.MAX_VALUE;
        boolean any = false;
        for (String part : spec.replaceAll("(>=|<=|>|<|\\^|~)\\s+", "$1").split("\\s+")) {
            Matcher m = BOUND.matcher(part.replace(".x", ""));
            if (!m.lookingAt()) {
                continue;
            }
            any = true;
            int n = Integer.parseInt(m.group(2));
            String op = m.group(1) == null ? "==" : m.group(1);
            switch (op) {
                case ">=" -> low = Math.max(low, n);
                case ">" -> low = Math.max(low, n + 1);
                case "<" -> high = Math.min(high, m.group(3) == null || m.group(3).equals("0") ? n - 1 : n);
                case "<=" -> high = Math.min(high, n);
                default -> {
                    low = n;
                    high = n;
                }
            }
        }
        int lo = low;
        int hi = high;
        return any ? NODE_MAJORS.stream().filter(n -> n >= lo && n <= hi).toList() : List.of();
    }
}
