import com.marcnuri.helm.Helm;
import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.contract.PhaseName;
import dev.crucible.controllers.admission.AdmissionReviewer;
import dev.crucible.controllers.config.OperatorSettings;
import dev.crucible.e2e.Manifests;
import dev.crucible.e2e.cluster.CrdInstaller;
import dev.crucible.e2e.cluster.FakeNodes;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.e2e.cluster.KubeBinaries;
import dev.crucible.e2e.cluster.LocalCluster;
import dev.crucible.operator.webhook.AdmissionHttpsServer;
import dev.crucible.operator.webhook.BootstrapSettings;
import dev.crucible.operator.webhook.CertificateBootstrap;
import dev.crucible.operator.webhook.CertificateFiles;
import dev.crucible.operator.webhook.CertificateRotation;
import dev.crucible.operator.webhook.SubjectAlternativeNames;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.vertx.core.Vertx;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Fault (issue 41, point 7): the validating webhook goes down while N Rollouts run. The webhook is the
 * chart's own ValidatingWebhookConfiguration (rendered by Helm with the default values: its rules,
 * failurePolicy and timeout), pointed by URL at the operator's HTTPS admission server in this JVM (a
 * local API server cannot reach a Service), with the self-signed bootstrap's certificate and caBundle.
 * The Rollouts are created through it (its review count must rise), then its server is closed: a new
 * Rollout and an edit of a running one must fail or pass as failurePolicy says, and a refusal must name
 * the webhook; the operator (never touched) must still end every Rollout when their verifiers report.
 * Prints: fault=webhook-down rollouts=N lost=… duplicated=… wrong_reward=… stuck=… recovery_s=… failure_policy=… create=… edit=…
 *   recovery_s: from the webhook's stop to every Rollout terminal; create/edit: refused or stored.
 * --failure-policy Fail|Ignore overrides the chart's; --stop-operator true also stops the operator
 * with the webhook (the check of the check: the Rollouts must be reported stuck).
 * Exit 0 when the counts are 0 and create/edit behaved as the policy says, 1 otherwise, 3 without kube binaries.
 */
public class WebhookDown {

    static final String NS = "faults";
    static final String RELEASE_NS = "crucible-system";

    public static void main(String[] args) throws Exception {
        int n = 10;
        long timeoutS = 180;
        String policy = null;
        boolean stopOperator = false;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--rollouts" -> n = Integer.parseInt(args[i + 1]);
                case "--timeout-s" -> timeoutS = Long.parseLong(args[i + 1]);
                case "--failure-policy" -> policy = switch (args[i + 1]) {
                    case "Fail", "Ignore" -> args[i + 1];
                    default -> throw new IllegalArgumentException("--failure-policy: Fail or Ignore, not " + args[i + 1]);
                };
                case "--stop-operator" -> stopOperator = Boolean.parseBoolean(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--rollouts N --timeout-s S --failure-policy Fail|Ignore --stop-operator true|false)");
            }
        }
        KubeBinaries binaries = KubeBinaries.find();
        if (binaries == null) {
            System.err.println("skipped: " + KubeBinaries.MISSING);
            System.exit(3);
        }
        System.exit(run(binaries, n, timeoutS, policy, stopOperator) ? 0 : 1);
    }

    static boolean run(KubeBinaries binaries, int n, long timeoutS, String policyOverride, boolean stopOperator) throws Exception {
        Path certs = Files.createTempDirectory("webhook-down-certs-");
        Vertx vertx = Vertx.vertx();
        try (LocalCluster c = LocalCluster.start(binaries)) {
            KubernetesClient k = c.newClient();
            CrdInstaller.install(k);
            c.startScheduler();
            c.startKwok();
            FakeNodes.create(k, 4, 0, 0);
            for (String ns : List.of(NS, RELEASE_NS)) {
                k.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
            }
            ValidatingWebhookConfiguration vwc = chartWebhook(k);
            String policy = policyOverride != null ? policyOverride : vwc.getWebhooks().get(0).getFailurePolicy();
            BootstrapSettings settings = new BootstrapSettings(RELEASE_NS, "crucible-webhook-selfsigned", vwc.getMetadata().getName(),
                    SubjectAlternativeNames.forService("crucible-webhook", RELEASE_NS, "cluster.local", List.of("127.0.0.1")),
                    Duration.ofDays(3650), Duration.ofDays(365), Duration.ofDays(30), new CertificateFiles(certs));
            AdmissionHttpsServer server = new AdmissionHttpsServer(vertx, new AdmissionReviewer(InProcessOperator.validator()),
                    "127.0.0.1", 0, settings.files());
            CertificateRotation rotation = new CertificateRotation(new CertificateBootstrap(k, settings, Clock.systemUTC()),
                    server, Duration.ofHours(1), Duration.ofSeconds(5));
            if (!rotation.check()) { // issues the certificate and starts serving; the port is known from here on
                throw new IllegalStateException("the webhook's certificate bootstrap failed (see the log above)");
            }
            for (var hook : vwc.getWebhooks()) {
                hook.setFailurePolicy(policy);
                hook.getClientConfig().setService(null);
                hook.getClientConfig().setUrl("https://127.0.0.1:" + server.port() + "/validate");
            }
            k.resource(vwc).create();
            if (!rotation.check()) { // now it patches the caBundle
                throw new IllegalStateException("the webhook's caBundle was not patched (see the log above)");
            }

            InProcessOperator op = startOperator(c);
            ExecutorService pool = Executors.newFixedThreadPool(16);
            try (FaultTally tally = new FaultTally(k, NS)) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
                ControlPlaneRestart.retrying("environment", deadline,
                        () -> Manifests.environment(k, NS, "calc", "resources: {cpu: 10m, memory: 32Mi}"));
                awaitWebhookInPath(k, server, deadline);
                long reviewsBefore = server.reviews();
                List<Future<?>> created = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    String name = "r" + i;
                    created.add(pool.submit(() -> ControlPlaneRestart.retrying("create " + name, deadline,
                            () -> ControlPlaneRestart.create(k, name))));
                }
                for (Future<?> f : created) {
                    f.get();
                }
                long reviewed = server.reviews() - reviewsBefore;
                if (reviewed < n) {
                    System.err.println("the webhook reviewed " + reviewed + " of " + n + " creates: it was not in the path");
                    return false;
                }
                OperatorKill.awaitAll(k, n, r -> r.getStatus() != null && r.getStatus().phase == PhaseName.Running, deadline);

                long down = System.nanoTime();
                server.close();
                if (stopOperator) {
                    op.close();
                }
                System.err.println("webhook server stopped (failurePolicy " + policy + ")" + (stopOperator ? "; the operator stopped too" : ""));
                List<Future<?>> results = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    int idx = i;
                    double reward = idx % 2 == 0 ? 1.0 : 0.0;
                    results.add(pool.submit(() -> Manifests.verifierExits(k, NS, "r" + idx + "-main-0",
                            "{\"reward\":" + reward + ",\"verdict\":\"" + (reward > 0 ? "pass" : "fail") + "\",\"turns\":1}")));
                }
                // The probes run while the results come in: a refused write takes the client's own retries of
                // a 500 (Fabric8 retries it with backoff, ~20 s), which is not the operator's recovery.
                Future<String> create = pool.submit(() -> attempt("create", () -> Manifests.rollout(k, NS, "after-webhook-down", "calc", "")));
                // A merge patch naming no resourceVersion: the operator writes r0's status meanwhile, and a
                // read-modify-write edit would then end in 409 before the webhook is asked.
                Future<String> edit = pool.submit(() -> attempt("edit", () -> k.resources(Rollout.class).inNamespace(NS).withName("r0")
                        .patch(io.fabric8.kubernetes.client.dsl.base.PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType.JSON_MERGE),
                                "{\"metadata\":{\"labels\":{\"faults.crucible.dev/edited\":\"true\"}}}")));
                for (Future<?> f : results) {
                    f.get();
                }
                OperatorKill.awaitAll(k, n, r -> !r.getMetadata().getName().startsWith("r")
                        || r.getStatus() != null && r.getStatus().phase != null && r.getStatus().phase.isTerminal(), deadline);
                double recoveryS = (System.nanoTime() - down) / 1e9;
                String createdOne = create.get();
                String edited = edit.get();
                FaultTally.Counts counts = tally.count(n, i -> i % 2 == 0 ? 1.0 : 0.0);
                String expected = policy.equals("Fail") ? "refused" : "stored";
                boolean asPolicy = createdOne.equals(expected) && edited.equals(expected);
                if (!asPolicy) {
                    System.err.println("failurePolicy " + policy + " says " + expected + ", but create=" + createdOne + " edit=" + edited);
                }
                System.out.println(FaultTally.line("webhook-down", n, counts, recoveryS) + " failure_policy=" + policy
                        + " create=" + createdOne + " edit=" + edited);
                return counts.clean() && asPolicy;
            } finally {
                pool.shutdownNow();
                op.close();
                rotation.close();
            }
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * The chart's ValidatingWebhookConfiguration as Helm renders it with the default values (release
     * "crucible" in crucible-system): the one definition of its rules, failurePolicy and timeout.
     */
    static ValidatingWebhookConfiguration chartWebhook(KubernetesClient k) {
        Path chart = Path.of(System.getProperty("crucible.repo.root", ".")).resolve("helm/crucible");
        String rendered = new Helm(chart).template().withName("crucible").withNamespace(RELEASE_NS).call();
        List<ValidatingWebhookConfiguration> found = new ArrayList<>();
        for (String doc : rendered.split("(?m)^---\\s*$")) {
            if (doc.contains("kind: ValidatingWebhookConfiguration")) {
                for (HasMetadata o : k.load(new ByteArrayInputStream(doc.getBytes(StandardCharsets.UTF_8))).items()) {
                    if (o instanceof ValidatingWebhookConfiguration v) {
                        found.add(v);
                    }
                }
            }
        }
        if (found.size() != 1) {
            throw new IllegalStateException("the chart in " + chart + " renders " + found.size() + " ValidatingWebhookConfigurations, not 1");
        }
        return found.get(0);
    }

    /**
     * The operator, started again when an informer's first list fails (the SDK then stops it): at a load
     * of 40 on 2 cores a connection was closed under it once; that is the machine, not the fault.
     */
    private static InProcessOperator startOperator(LocalCluster c) {
        for (int attempt = 1; ; attempt++) {
            InProcessOperator op = new InProcessOperator(c.newClient(), OperatorSettings.defaults().withVerifierImage(OperatorKill.VERIFIER_IMAGE));
            try {
                return op.start();
            } catch (RuntimeException e) {
                op.close();
                if (attempt == 3) {
                    throw e;
                }
                System.err.println("operator start failed (" + e.getMessage() + "); starting it again");
            }
        }
    }

    /**
     * Waits until the API server calls the webhook (it loads a new configuration asynchronously): a
     * dry-run create of a copy of the environment, which validating webhooks see, until one is reviewed.
     */
    private static void awaitWebhookInPath(KubernetesClient k, AdmissionHttpsServer server, long deadline) throws InterruptedException {
        var env = k.resources(dev.crucible.api.v1alpha1.RLEnvironment.class).inNamespace(NS).withName("calc").get();
        env.getMetadata().setName("calc-probe");
        env.getMetadata().setResourceVersion(null);
        env.getMetadata().setUid(null);
        env.setStatus(null);
        long before = server.reviews();
        while (server.reviews() == before) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the API server never called the webhook");
            }
            try {
                k.resource(env).dryRun().create();
            } catch (KubernetesClientException e) {
                // not loaded yet, or refused: look again
            }
            Thread.sleep(200);
        }
    }

    /** "refused" (the message, which must name the webhook, goes to stderr) or "stored". */
    private static String attempt(String what, Runnable write) {
        long t0 = System.nanoTime();
        try {
            write.run();
            System.err.println(what + " with the webhook down: stored");
            return "stored";
        } catch (KubernetesClientException e) {
            System.err.printf(Locale.ROOT, "%s with the webhook down: HTTP %d after %.1f s (the client's retries included): %s%n",
                    what, e.getCode(), (System.nanoTime() - t0) / 1e9, e.getMessage());
            return e.getMessage() != null && e.getMessage().contains("validate.crucible.dev") ? "refused" : "refused-unclear";
        }
    }
}
