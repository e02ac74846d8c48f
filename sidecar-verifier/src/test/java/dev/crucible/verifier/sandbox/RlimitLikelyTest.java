package dev.crucible.verifier.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Issue 34: without cgroups a box holds memory and processes by RLIMIT_AS and RLIMIT_NPROC, which the host never sees hit (the agent
 * exits 1 or 2 by itself). {@link BoxEnforcement#rlimitLikely} names the limit from the exit and the output's tail, only where that
 * rlimit was set, only for a status of the agent's own, and quotes nothing of the agent's text but the fixed phrase it matched.
 */
class RlimitLikelyTest {
    private static final BoxLimits LIMITS = new BoxLimits(256L << 20, 64, 1000, 60, 0, BoxLimits.DEFAULT_TMP);

    @Test
    void namesTheMemoryLimitFromAPythonMemoryError() {
        String tail = "Traceback (most recent call last):\n  File \"<string>\", line 1\nMemoryError\n";
        assertThat(BoxEnforcement.rlimitLikely(LIMITS, false, 1, tail))
                .startsWith("the memory limit 256Mi (RLIMIT_AS, per process) was likely hit: the agent exited 1 and its output says \"memoryerror\"");
    }

    @Test
    void namesTheProcessLimitFromARefusedFork() {
        assertThat(BoxEnforcement.rlimitLikely(LIMITS, false, 2, "sh: 1: Cannot fork\n")).contains("the process limit 64 (RLIMIT_NPROC) was likely hit")
                .doesNotContain("memory");
    }

    @Test
    void saysNothingWithCgroupsForASignalOrWithoutThatLimit() {
        assertThat(BoxEnforcement.rlimitLikely(LIMITS, true, 1, "MemoryError")).as("cgroups: the box sees and names the limit itself").isNull();
        assertThat(BoxEnforcement.rlimitLikely(LIMITS, false, 137, "MemoryError")).as("killed by a signal").isNull();
        assertThat(BoxEnforcement.rlimitLikely(LIMITS, false, 0, "MemoryError")).as("exited 0").isNull();
        assertThat(BoxEnforcement.rlimitLikely(new BoxLimits(0, 0, 0, 0, 0, BoxLimits.DEFAULT_TMP), false, 1, "MemoryError Cannot fork")).isNull();
    }

    @Test
    void quotesOnlyTheFixedPhrase() {
        String said = BoxEnforcement.rlimitLikely(LIMITS, false, 1, "\u001b]52;c;ZXZpbA==\u0007 MemoryError: SECRET-MARKER\n");
        assertThat(said).contains("\"memoryerror\"").doesNotContain("SECRET-MARKER").doesNotContain("\u001b");
    }
}
