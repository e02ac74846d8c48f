package dev.crucible.e2e.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.api.validation.Manifest;
import dev.crucible.api.validation.ManifestFuzzTest;
import dev.crucible.api.validation.ManifestMutations;
import dev.crucible.api.validation.ManifestValidator;
import dev.crucible.api.validation.ValidationError;
import dev.crucible.controllers.admission.AdmissionReviewer;
import dev.crucible.e2e.SharedCluster;
import dev.crucible.e2e.cluster.InProcessOperator;
import dev.crucible.e2e.cluster.KubeBinaries;
import dev.crucible.operator.webhook.AdmissionHttpsServer;
import dev.crucible.operator.webhook.BootstrapSettings;
import dev.crucible.operator.webhook.CertificateBootstrap;
import dev.crucible.operator.webhook.CertificateRotation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfigurationBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parity tier: {@code crucible validate} against the real API server with the CRDs installed and
 * the admission webhook registered. Every manifest of examples/, examples/invalid, the parity cases
 * (crds/src/test/resources/parity) and the fuzzer's cases goes to both: the CLI's validator, and a
 * server-side dry run with strict field validation (kubectl for files, so YAML is read as users' YAML
 * is, JSON for the fuzzer's mutated bodies). Fails when the server refuses what the CLI accepts,
 * when the CLI refuses what the server accepts for a reason not in {@link CliOnlyRules}, and when a
 * parity case's expectation (valid/ or invalid/) does not hold on the CLI.
 */
class ValidateParityOnApiServerTest {

    private static final int FUZZ_CASES = 200;

    @TempDir
    Path work;

    private final ManifestValidator validator = InProcessOperator.validator();
    private final List<String> problems = new ArrayList<>();

    @Test
    void cliRefusesEverythingTheApiServerRefuses() throws Exception {
        KubernetesClient admin = SharedCluster.client();
        Path kubectl = KubeBinaries.find().binary("kubectl");
        Path kubeconfig = SharedCluster.cluster().kubeconfig();
        String ns = SharedCluster.namespace("parity");
        Vertx vertx = Vertx.vertx();
        String vwc = ns + "-validate";
        BootstrapSettings settings = WebhookFixtures.settings(ns, "crucible-webhook-parity", vwc, work.resolve("certs"), List.of("127.0.0.1"));
        AdmissionHttpsServer server = new AdmissionHttpsServer(vertx, new AdmissionReviewer(validator), "127.0.0.1", 0, settings.files());
        CertificateBootstrap bootstrap = new CertificateBootstrap(admin, settings, java.time.Clock.systemUTC());
        try (CertificateRotation rotation = new CertificateRotation(bootstrap, server, Duration.ofHours(1), Duration.ofSeconds(5))) {
            assertThat(rotation.check()).isTrue();
            admin.resource(webhook(vwc, ns, server.port())).create();
            assertThat(rotation.check()).isTrue();
            Path repo = Path.of(System.getProperty("crucible.repo.root", "..")).toAbsolutePath().normalize();
            int files = 0;
            for (Path file : yamlFiles(repo.resolve("examples"))) {
                // A valid example may lean on its folder (a Rollout's environment beside it): judged alone, either verdict.
                Expect expect = file.toString().contains("/invalid/") ? Expect.INVALID : Expect.EITHER;
                compareFile(file, expect, kubectl, kubeconfig, ns);
                files++;
            }
            Path cases = repo.resolve("crds/src/test/resources/parity");
            List<Path> valid = yamlFiles(cases.resolve("valid"));
            List<Path> invalid = yamlFiles(cases.resolve("invalid"));
            assertThat(valid).as("valid parity cases").hasSizeGreaterThanOrEqualTo(20);
            assertThat(invalid).as("invalid parity cases").hasSizeGreaterThanOrEqualTo(60);
            for (Path file : valid) {
                compareFile(file, Expect.VALID, kubectl, kubeconfig, ns);
            }
            for (Path file : invalid) {
                compareFile(file, Expect.INVALID, kubectl, kubeconfig, ns);
            }
            files += valid.size() + invalid.size();
            int fuzz = fuzz(kubectl, kubeconfig, ns);
            long webhookCalls = server.reviews();
            assertThat(webhookCalls).as("the API server called the webhook on dry runs").isPositive();
            assertThat(problems).as("parity problems in " + files + " files and " + fuzz + " fuzz cases").isEmpty();
        } finally {
            admin.admissionRegistration().v1().validatingWebhookConfigurations().withName(vwc).delete();
            vertx.close().toCompletionStage().toCompletableFuture().join();
        }
    }

    enum Expect { VALID, INVALID, EITHER }

    private void compareFile(Path file, Expect expect, Path kubectl, Path kubeconfig, String ns) throws Exception {
        List<ValidationError> cli = validator.validatePaths(List.of(file));
        String server = kubectlDryRun(kubectl, kubeconfig, ns, file);
        judge(file.toString(), cli, server, expect);
    }

    /** Server verdict: null when accepted, else its message. */
    private void judge(String name, List<ValidationError> cli, String server, Expect expect) {
        for (ValidationError e : cli) {
            if (e.toString().contains("\n")) {
                problems.add(name + ": error spans lines: " + e);
            }
        }
        if (expect == Expect.VALID && !cli.isEmpty()) {
            problems.add(name + ": a valid case, refused by the CLI: " + cli.get(0));
        }
        if (expect == Expect.INVALID && cli.isEmpty()) {
            problems.add(name + ": an invalid case, accepted by the CLI" + (server == null ? " and the server" : ""));
        }
        if (server != null && cli.isEmpty()) {
            problems.add(name + ": the API server refuses it, the CLI accepts it: " + oneLine(server));
        }
        if (server == null && !cli.isEmpty()) {
            for (ValidationError e : cli) {
                if (CliOnlyRules.explain(e) == null) {
                    problems.add(name + ": the CLI refuses it for a reason not in CliOnlyRules, the server accepts it: " + e);
                }
            }
        }
    }

    /** The fuzzer's cases (same seed, seeds and order): mutated bodies as JSON files, duplicated keys as YAML. */
    private int fuzz(Path kubectl, Path kubeconfig, String ns) throws Exception {
        List<Manifest> seeds = ManifestFuzzTest.seeds();
        ManifestMutations mutations = new ManifestMutations(ManifestFuzzTest.SEED);
        YAMLMapper yaml = new YAMLMapper();
        ObjectMapper json = new ObjectMapper();
        for (int i = 0; i < FUZZ_CASES; i++) {
            Manifest seed = seeds.get(mutations.nextInt(seeds.size()));
            String name = "fuzz case " + i;
            if (i % 10 == 0) {
                Path file = work.resolve("fuzz-" + i + ".yaml");
                Files.writeString(file, mutations.duplicateKey(yaml.writeValueAsString(seed.body())));
                compareFile(file, Expect.EITHER, kubectl, kubeconfig, ns);
                continue;
            }
            ObjectNode body = seed.body().deepCopy();
            String mutation = mutations.mutate(body);
            ObjectNode meta = body.path("metadata").isObject() ? (ObjectNode) body.get("metadata") : null;
            if (meta != null) {
                meta.remove("namespace"); // kubectl -n decides; a mismatch would be kubectl's refusal, not the server's
            }
            // JSON is YAML: kubectl sends the body as it is, the CLI reads the same file.
            Path file = work.resolve("fuzz-" + i + ".json");
            Files.writeString(file, json.writeValueAsString(body));
            List<ValidationError> cli = validator.validatePaths(List.of(file));
            judge(name + " (" + mutation + ")", cli, kubectlDryRun(kubectl, kubeconfig, ns, file), Expect.EITHER);
        }
        return FUZZ_CASES;
    }

    private static String kubectlDryRun(Path kubectl, Path kubeconfig, String ns, Path file) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(kubectl.toString(), "--kubeconfig", kubeconfig.toString(), "create", "-n", ns, "--request-timeout=60s",
                "--dry-run=server", "--validate=strict", "-o", "name", "-f", file.toString())
                .redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "kubectl timed out";
        }
        return p.exitValue() == 0 ? null : new String(out);
    }

    private static List<Path> yamlFiles(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
                    .filter(p -> !p.toString().contains("/workspace/") && !p.toString().contains("/history/")
                            && !p.toString().contains("/hidden/"))
                    .sorted().toList();
        }
    }

    private static String oneLine(String s) {
        String line = s.strip().replaceAll("\\s*\\n\\s*", " | ");
        return line.length() > 400 ? line.substring(0, 400) + "…" : line;
    }

    private static io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingWebhookConfiguration webhook(String name, String ns, int port) {
        return new ValidatingWebhookConfigurationBuilder().withNewMetadata().withName(name).endMetadata()
                .addNewWebhook().withName("validate.crucible.dev").withAdmissionReviewVersions("v1").withSideEffects("None")
                .withFailurePolicy("Fail").withTimeoutSeconds(10)
                .withNewClientConfig().withUrl("https://127.0.0.1:" + port + "/validate").endClientConfig()
                .withNewNamespaceSelector().addToMatchLabels("kubernetes.io/metadata.name", ns).endNamespaceSelector()
                .addNewRule().withApiGroups("crucible.dev").withApiVersions("v1alpha1").withOperations("CREATE", "UPDATE")
                .withResources("rlenvironments", "rollouts", "rolloutsnapshots", "probemodels").withScope("Namespaced").endRule()
                .endWebhook().build();
    }
}
