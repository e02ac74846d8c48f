package dev.crucible.operator.webhook;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs {@link CertificateBootstrap} at start-up and then every {@code interval}: the first success
 * starts the HTTPS server, later ones reload it when the certificate files changed (this replica or
 * another one rotated it). A failed check is logged and retried after {@code retry}; it never stops the
 * operator, and a server already serving keeps its still-valid certificate meanwhile.
 */
public final class CertificateRotation implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CertificateRotation.class);

    private final CertificateBootstrap bootstrap;
    private final AdmissionHttpsServer server;
    private final Duration interval;
    private final Duration retry;
    private final ScheduledExecutorService timer;
    private volatile boolean lastCheckSucceeded;

    public CertificateRotation(CertificateBootstrap bootstrap, AdmissionHttpsServer server, Duration interval, Duration retry) {
        this.bootstrap = bootstrap;
        this.server = server;
        this.interval = interval;
        this.retry = retry.compareTo(interval) < 0 ? retry : interval;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "crucible-webhook-certificate");
            t.setDaemon(true);
            return t;
        });
    }

    public CertificateRotation start() {
        timer.execute(this::tick);
        return this;
    }

    private void tick() {
        Duration next = check() ? interval : retry;
        if (!timer.isShutdown()) {
            timer.schedule(this::tick, next.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** One check now, on the caller's thread; true when it succeeded. */
    public synchronized boolean check() {
        try {
            CertificateBootstrap.Outcome outcome = bootstrap.ensure();
            if (!server.serving()) {
                server.start();
            } else if (outcome.filesChanged()) {
                server.reload();
            }
            lastCheckSucceeded = true;
        } catch (RuntimeException e) {
            lastCheckSucceeded = false;
            LOG.error("Webhook certificate check failed, retrying in {}s{}: {}", retry.toSeconds(),
                    server.serving() ? " (still serving the current certificate)" : " (the webhook is not served yet)", e.getMessage(), e);
        }
        return lastCheckSucceeded;
    }

    public boolean serving() {
        return server.serving();
    }

    public boolean lastCheckSucceeded() {
        return lastCheckSucceeded;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        server.close();
    }
}
