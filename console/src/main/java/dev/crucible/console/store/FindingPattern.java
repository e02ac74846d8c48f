package dev.crucible.console.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * A finding's pattern: its detector, rule, path and the shape of its evidence. The shape keeps the evidence's words
 * and drops what differs between runs of the same hack: quoted text, numbers (line numbers, sizes, pids) and hashes.
 * {@code test report outcome rewritten to passed (line 9): rep.outcome = "passed"} has the shape
 * {@code test report outcome rewritten to passed (line #): rep.outcome = "…"}.
 */
public final class FindingPattern {
    private static final Pattern QUOTED = Pattern.compile("\"[^\"]*\"|'[^']*'");
    private static final Pattern HEX = Pattern.compile("\\b(?:sha256:)?[0-9a-f]{12,}\\b");
    private static final Pattern NUMBER = Pattern.compile("\\d+(?:\\.\\d+)?");
    private static final int MAX_SHAPE = 300;

    private FindingPattern() {}

    public static String shape(String evidence) {
        if (evidence == null) return "";
        String s = QUOTED.matcher(evidence).replaceAll(m -> m.group().charAt(0) + "…" + m.group().charAt(0));
        s = HEX.matcher(s).replaceAll("<hash>");
        s = NUMBER.matcher(s).replaceAll("#");
        s = s.strip().replaceAll("\\s+", " ");
        return s.length() > MAX_SHAPE ? s.substring(0, MAX_SHAPE) + "…" : s;
    }

    /** A short stable id of (detector, rule, path, shape): what the rollouts view's {@code pattern} filter takes. */
    public static String id(String detector, String rule, String path, String evidence) {
        String key = nz(detector) + "\u0000" + nz(rule) + "\u0000" + nz(path) + "\u0000" + shape(evidence);
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String nz(String s) { return s == null ? "" : s; }
}
