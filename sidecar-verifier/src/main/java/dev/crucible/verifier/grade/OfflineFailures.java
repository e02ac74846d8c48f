package dev.crucible.verifier.grade;

import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.grade.result.TestStatus;
import dev.crucible.verifier.config.ExcludedTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Tests that fail only because grading has no network: a failed or errored test whose failure text
 * names an unreachable network (name resolution, refused or unreachable connections, go's
 * {@code dial tcp}, node's {@code getaddrinfo}/{@code ENOTFOUND}, Python's {@code socket.gaierror},
 * Rust's "failed to lookup address information"). Only a test that fails at the task commit can be
 * one, never a failToPass test; the reason quotes the line that matched, so a reader can judge it.
 */
public final class OfflineFailures {
    static final Pattern NETWORK = Pattern.compile("(?i)(temporary failure in name resolution|name or service not known"
            + "|nodename nor servname|no address associated with hostname|failed to lookup address information|socket\\.gaierror|gaierror"
            + "|getaddrinfo|eai_again|enotfound|enetunreach|ehostunreach|econnrefused|network is unreachable|network unreachable"
            + "|no route to host|connection refused|could not resolve host|failed to establish a new connection|dial (?:tcp|udp)"
            + "|lookup \\S+ on \\S+|no such host|dns error|urlopen error|max retries exceeded|name resolution)");

    private OfflineFailures() {}

    /** The line of {@code message} that names an unreachable network, if one does. */
    public static Optional<String> networkCause(String message) {
        if (message == null) return Optional.empty();
        for (String line : message.split("\n")) {
            Matcher m = NETWORK.matcher(line);
            if (m.find()) {
                String l = line.strip();
                return Optional.of(l.length() > 240 ? l.substring(0, 240) + "…" : l);
            }
        }
        return Optional.empty();
    }

    /** The tests of a run at the task commit that failed for want of a network, with the reason shown. */
    public static List<ExcludedTest> find(List<TestCase> tests, Set<String> failToPass) {
        List<ExcludedTest> out = new ArrayList<>();
        for (TestCase t : tests) {
            if (failToPass.contains(t.id())) continue;
            if (t.status() != TestStatus.FAILED && t.status() != TestStatus.ERROR) continue;
            networkCause(t.message()).ifPresent(line -> out.add(new ExcludedTest(t.id(), "fails at the task commit without network: " + line)));
        }
        return out;
    }
}
