package dev.crucible.operator;

import dev.crucible.operator.webhook.SnapshotAgentCertificates;
import dev.crucible.operator.webhook.SnapshotAgentPki;
import dev.crucible.snapshot.client.tls.AgentClientTls;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * The operator's TLS settings for agent calls: checks (and if due, re-issues) the agent
 * certificates on first use and then at most every {@code interval}, so no start-up ordering
 * between the operator, its RBAC and the chart's Secrets is needed and renewals need no restart.
 */
final class AgentTlsRefresh implements Supplier<AgentClientTls> {

    private final SnapshotAgentCertificates certs;
    private final Duration interval;
    private long checkedAtNanos;
    private boolean checked;

    AgentTlsRefresh(SnapshotAgentCertificates certs, Duration interval) {
        this.certs = certs;
        this.interval = interval;
    }

    @Override
    public synchronized AgentClientTls get() {
        if (!checked || System.nanoTime() - checkedAtNanos > interval.toNanos()) {
            certs.ensure();
            checked = true;
            checkedAtNanos = System.nanoTime();
        }
        return new AgentClientTls(certs.caFile(), certs.clientCertFile(), certs.clientKeyFile(), SnapshotAgentPki.AGENT_NAME);
    }
}
