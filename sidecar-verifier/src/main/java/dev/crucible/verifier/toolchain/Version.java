package dev.crucible.verifier.toolchain;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A dotted release number ("3.11.7", "1.22", "20.11.1"), as toolchain requests and installed
 * toolchains spell them. Requests may end in a wildcard ("3.x", "18.x", "1.22.*"), which matches any
 * value of that part; "*", "", "stable", "latest", "lts/*" ask for no particular version.
 */
public record Version(List<Integer> parts) implements Comparable<Version> {
    private static final Pattern NUMBERS = Pattern.compile("^v?(\\d+(?:\\.\\d+)*)(?:\\.[x*])?$");

    /** The numeric version of {@code s} ("v20.1.0", "go1.22.5", "3.12.1"); empty when it has none. */
    public static Optional<Version> parse(String s) {
        if (s == null) return Optional.empty();
        String t = s.strip().toLowerCase();
        if (t.startsWith("go")) t = t.substring(2);
        Matcher m = NUMBERS.matcher(t);
        if (!m.matches()) return Optional.empty();
        List<Integer> p = new ArrayList<>();
        for (String x : m.group(1).split("\\.")) p.add(Integer.parseInt(x.length() > 9 ? x.substring(0, 9) : x));
        return Optional.of(new Version(List.copyOf(p)));
    }

    /** True for requests that name no version ("*", "stable", "latest", "3.x" keeps its major: see {@link #parse}). */
    public static boolean any(String wanted) {
        if (wanted == null) return true;
        String t = wanted.strip().toLowerCase();
        return t.isEmpty() || t.equals("*") || t.equals("x") || t.equals("stable") || t.equals("latest") || t.equals("lts/*")
                || t.equals("node") || t.equals("lts") || t.equals("current");
    }

    /** Whether this (installed) version satisfies {@code wanted}: every part the request gives is equal. */
    boolean matches(Version wanted) {
        if (wanted.parts.size() > parts.size()) return false;
        for (int i = 0; i < wanted.parts.size(); i++) if (!wanted.parts.get(i).equals(parts.get(i))) return false;
        return true;
    }

    int part(int i) { return i < parts.size() ? parts.get(i) : 0; }

    /**
     * The installed version nearest to {@code wanted}: the newest one that matches it, else the one
     * with the closest (major, minor, patch), newer winning a tie; empty when none is installed.
     */
    static <T> Optional<T> nearest(Version wanted, Collection<T> installed, java.util.function.Function<T, Version> version) {
        Optional<T> exact = installed.stream().filter(t -> version.apply(t).matches(wanted))
                .max(Comparator.comparing(version));
        if (exact.isPresent()) return exact;
        return installed.stream().min(Comparator.<T>comparingLong(t -> distance(version.apply(t), wanted))
                .thenComparing(version, Comparator.reverseOrder()));
    }

    private static long distance(Version a, Version b) {
        long d = 0;
        for (int i = 0; i < 3; i++) d = d * 1000 + Math.min(999, Math.abs(a.part(i) - b.part(i)));
        return d;
    }

    @Override
    public int compareTo(Version o) {
        for (int i = 0; i < Math.max(parts.size(), o.parts.size()); i++) {
            int c = Integer.compare(part(i), o.part(i));
            if (c != 0) return c;
        }
        return 0;
    }

    @Override
    public String toString() {
        return String.join(".", parts.stream().map(String::valueOf).toList());
    }
}
