package dev.crucible.verifier.sandbox;

import java.math.BigDecimal;
import java.util.Map;

/** Kubernetes quantities ("1Gi", "500m", "2") as the numbers the box enforces. */
public final class Quantities {
    private static final Map<String, Long> SUFFIX = Map.ofEntries(Map.entry("", 1L), Map.entry("k", 1000L),
            Map.entry("M", 1000_000L), Map.entry("G", 1000_000_000L), Map.entry("T", 1000_000_000_000L),
            Map.entry("Ki", 1L << 10), Map.entry("Mi", 1L << 20), Map.entry("Gi", 1L << 30), Map.entry("Ti", 1L << 40));

    private Quantities() {}

    /** Bytes of a memory or storage quantity; 0 for null or blank. {@code field} names it in the error. */
    public static long bytes(String q, String field) {
        if (q == null || q.isBlank()) return 0;
        String s = q.strip();
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) i++;
        Long mult = SUFFIX.get(s.substring(i));
        if (i == 0 || mult == null) throw new IllegalArgumentException(field + ": not a quantity: " + q);
        return new BigDecimal(s.substring(0, i)).multiply(BigDecimal.valueOf(mult)).longValue();
    }

    /** Thousandths of a CPU ("500m" = 500, "2" = 2000); 0 for null or blank. */
    public static long millicores(String q, String field) {
        if (q == null || q.isBlank()) return 0;
        String s = q.strip();
        try {
            if (s.endsWith("m")) return Long.parseLong(s.substring(0, s.length() - 1));
            return new BigDecimal(s).multiply(BigDecimal.valueOf(1000)).longValue();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(field + ": not a CPU quantity: " + q);
        }
    }

    /** "1Gi", "512Mi" or bytes, for messages. */
    public static String human(long bytes) {
        if (bytes >= (1L << 30) && bytes % (1L << 30) == 0) return (bytes >> 30) + "Gi";
        if (bytes >= (1L << 20) && bytes % (1L << 20) == 0) return (bytes >> 20) + "Mi";
        if (bytes >= (1L << 20)) return String.format("%.1fMi", bytes / 1048576.0);
        return bytes + " bytes";
    }
}
