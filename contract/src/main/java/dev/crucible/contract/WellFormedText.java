package dev.crucible.contract;

/**
 * Text that UTF-8 can encode. A Java string may hold a lone surrogate (a test's message made by the code under
 * test, a file name, a process's output decoded leniently); encoding it to UTF-8 fails ("Input length = 1"), and a
 * result file that cannot be written loses the run's reward and findings. Each lone surrogate becomes U+FFFD.
 */
public final class WellFormedText {
    private WellFormedText() {
    }

    public static String of(String s) {
        if (s == null) return null;
        int n = s.length();
        StringBuilder out = null;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            boolean paired = Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1));
            if (paired) {
                if (out != null) out.append(c).append(s.charAt(i + 1));
                i++;
            } else if (Character.isSurrogate(c)) {
                if (out == null) out = new StringBuilder(n).append(s, 0, i);
                out.append('\uFFFD');
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? s : out.toString();
    }
}
