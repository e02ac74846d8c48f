package dev.crucible.derive;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Ranks matrix combinations for the default choice: stable before experimental (nightly, beta, dev,
 * rc, pypy, an {@code experimental: true} cell), available toolchains before missing ones, then the
 * newest toolchain versions, keys in the matrix's own order.
 */
final class MatrixRanking {
    private static final Pattern UNSTABLE = Pattern.compile("(?i).*(nightly|beta|alpha|-dev|\\bdev\\b|rc\\d*$|pypy|graalpy|canary|experimental|latest-?pre).*");
    private static final Pattern NUMBER = Pattern.compile("^v?(\\d+(?:\\.\\d+)*)(?:\\.x)?$");

    private MatrixRanking() {}

    /** The language a matrix key names a version of, or null: python-version → python, go → go, toolchain → rust… */
    static String language(String key) {
        String k = key.toLowerCase();
        if (k.contains("python") || k.equals("py")) return "python";
        if (k.equals("go") || k.startsWith("go-") || k.startsWith("go_") || k.startsWith("golang")) return "go";
        if (k.contains("node")) return "node";
        if (k.contains("rust") || k.equals("toolchain")) return "rust";
        if (k.contains("java") || k.contains("jdk")) return "java";
        return null;
    }

    static boolean stable(Map<String, String> combo) {
        if ("true".equalsIgnoreCase(combo.getOrDefault("experimental", ""))) return false;
        return combo.entrySet().stream().filter(e -> language(e.getKey()) != null).noneMatch(e -> UNSTABLE.matcher(e.getValue()).matches());
    }

    static boolean available(Map<String, String> combo) {
        return combo.entrySet().stream().filter(e -> language(e.getKey()) != null)
                .allMatch(e -> ToolchainAvailability.available(language(e.getKey()), e.getValue()));
    }

    /** The best combination among {@code described} (index-aligned with the candidates), by the order above. */
    static Optional<Integer> best(List<Map<String, String>> described) {
        List<Integer> idx = new ArrayList<>();
        for (int i = 0; i < described.size(); i++) idx.add(i);
        if (described.stream().allMatch(c -> c.keySet().stream().allMatch(k -> language(k) == null))) return Optional.empty();
        Comparator<Integer> order = Comparator.<Integer, Boolean>comparing(i -> stable(described.get(i)))
                .thenComparing(i -> available(described.get(i)))
                .thenComparing((a, b) -> compareVersions(described.get(a), described.get(b)));
        return idx.stream().max(order.thenComparing(Comparator.<Integer>reverseOrder()));
    }

    private static int compareVersions(Map<String, String> a, Map<String, String> b) {
        for (String k : a.keySet()) {
            if (language(k) == null || !b.containsKey(k)) continue;
            int c = compare(a.get(k), b.get(k));
            if (c != 0) return c;
        }
        return 0;
    }

    static int compare(String a, String b) {
        List<Integer> x = parts(a);
        List<Integer> y = parts(b);
        if (x.isEmpty() || y.isEmpty()) return Boolean.compare(!x.isEmpty(), !y.isEmpty());
        for (int i = 0; i < Math.max(x.size(), y.size()); i++) {
            int c = Integer.compare(i < x.size() ? x.get(i) : 0, i < y.size() ? y.get(i) : 0);
            if (c != 0) return c;
        }
        return 0;
    }

    private static List<Integer> parts(String v) {
        var m = NUMBER.matcher(v == null ? "" : v.strip());
        if (!m.matches()) return List.of();
        List<Integer> out = new ArrayList<>();
        for (String p : m.group(1).split("\\.")) out.add(Integer.parseInt(p.length() > 9 ? p.substring(0, 9) : p));
        return out;
    }
}
