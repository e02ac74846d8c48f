package dev.crucible.tracestore;

import dev.crucible.tracestore.common.StoreSettings;
import dev.crucible.tracestore.auth.KubeAuth;
import dev.crucible.tracestore.http.TraceStoreServer;
import dev.crucible.tracestore.store.TraceService;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Clock;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The store's process: settings from {@code CRUCIBLE_TRACE_STORE_*}, the in-cluster API client, the server, the sweep. */
public final class TraceStoreMain {
    private static final Logger LOG = LoggerFactory.getLogger(TraceStoreMain.class);

    private TraceStoreMain() {}

    public static void main(String[] args) throws Exception {
        StoreSettings settings = StoreSettings.fromEnv(System.getenv());
        KubernetesClient kube = new KubernetesClientBuilder().build();
        TraceService store = new TraceService(settings, kube, Clock.systemUTC());
        TraceStoreServer server = TraceStoreServer.start(settings, store,
                new KubeAuth(kube, settings.authCacheTtl(), settings.writerServiceAccount(), settings.writerAudience()));
        ScheduledExecutorService sweep = startSweep(store, settings);
        LOG.info("trace store on :{} over {}, index in {} (retention {} / {} bytes)", server.port(),
                store.files().storage().describe(), settings.dir(),
                settings.retentionMaxAge(), settings.retentionMaxBytes());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            sweep.shutdownNow();
            try {
                server.close();
                store.close();
            } catch (Exception e) {
                LOG.warn("stopping: {}", e.toString());
            }
            kube.close();
        }));
    }

    /** Time retention every {@code retentionSweep}; a failed sweep is logged and tried again at the next. */
    public static ScheduledExecutorService startSweep(TraceService store, StoreSettings settings) {
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "trace-store-retention");
            t.setDaemon(true);
            return t;
        });
        long every = settings.retentionSweep().toMillis();
        s.scheduleWithFixedDelay(() -> {
            try {
                int n = store.sweep();
                if (n > 0) LOG.info("retention removed {} rollouts", n);
            } catch (Exception e) {
                LOG.warn("retention sweep failed: {}", e.toString());
            }
        }, every, every, TimeUnit.MILLISECONDS);
        return s;
    }
}
