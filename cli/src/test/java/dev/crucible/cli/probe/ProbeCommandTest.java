package dev.crucible.cli.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code crucible probe train | score | bench} end to end on the bundled corpus and tiny model. */
class ProbeCommandTest {
    static final Path ROOT = Path.of(System.getProperty("crucible.repo.root", ".."));
    static final Path CORPUS = ROOT.resolve("examples/probe/corpus.jsonl");
    static final Path MODEL = ROOT.resolve("probe-server/src/test/resources/tiny-model");

    record Run(int code, String out, String err) {
    }

    static synchronized Run run(String... args) {
        PrintStream old = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = new CommandLine(new ProbeCommand()).execute(args);
            return new Run(code, buf.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(old);
            System.setErr(oldErr);
        }
    }

    @Test
    void trainThenScoreRanksAFrontierBugAboveEasyAndHardOnes(@TempDir Path out) throws Exception {
        Run train = run("train", "--corpus", CORPUS.toString(), "--model", MODEL.toString(), "--out", out.toString(),
                "--layers", "0", "--poolings", "mean_full,mean_last_half", "--aggregations", "mean_full",
                "--architectures", "linear,mlp", "--balance", "weighted", "--device", "cpu");
        assertThat(train.code()).as(train.out()).isZero();
        assertThat(train.out()).contains("selected L0/").contains("bal_acc=")
                .contains("selection (best of 4 cells, optimistic): auc=")
                .containsPattern("held-out \\(nested grouped CV, 5 outer folds\\): auc=0\\.[6-9]")
                .contains("chance band (20 within-group label shuffles").contains("bagOfWords=")
                .containsPattern("rvp vs best-of-4 gain over 4 cells: pearson=")
                .contains("solver small (target): best L0/").containsPattern("solver large: best L0/\\S+ bal_acc=0\\.");
        for (String f : new String[] {"probe.json", "head.json", "report.json", "sweep.png", "calibration.png",
                "rvp_gain.png", "sweep_solvers.png"}) {
            assertThat(out.resolve(f)).exists();
        }

        Run score = run("score", "--model", out.toString(), "--input",
                ROOT.resolve("examples/probe/score-input.jsonl").toString(), "--device", "cpu");
        assertThat(score.code()).as(score.out()).isZero();
        ObjectMapper json = new ObjectMapper();
        Map<String, JsonNode> byId = new HashMap<>();
        for (String line : score.out().strip().split("\n")) {
            JsonNode n = json.readTree(line);
            byId.put(n.get("id").asText(), n);
        }
        assertThat(byId).containsOnlyKeys("easy", "frontier", "hard", "invalid");
        double frontier = byId.get("frontier").get("probability").asDouble();
        assertThat(frontier).isGreaterThan(byId.get("easy").get("probability").asDouble())
                .isGreaterThan(byId.get("hard").get("probability").asDouble());
        // no --invalid-floor: training chose one below every valid task's reward
        double floor = json.readTree(out.resolve("probe.json").toFile()).get("reward").get("invalidFloor").asDouble();
        assertThat(byId.get("invalid").get("reward").asDouble()).isEqualTo(floor);
        assertThat(floor).isLessThan(byId.get("hard").get("reward").asDouble());

        Run labelled = run("score", "--model", out.toString(), "--input", CORPUS.toString(), "--device", "cpu",
                "--output", out.resolve("scores.jsonl").toString());
        assertThat(labelled.code()).as(labelled.err()).isZero();
        assertThat(labelled.err()).containsPattern("labelled rows \\(band 1-3/8\\): auc=0\\.[7-9]\\d* bal_acc=0\\.\\d+ ece=0\\.\\d+");
        // the other solver's labels: the probe was trained for "small", so it ranks "large"'s band worse
        Run large = run("score", "--model", out.toString(), "--input", CORPUS.toString(), "--device", "cpu",
                "--output", out.resolve("scores-large.jsonl").toString(), "--solver", "large");
        assertThat(large.code()).as(large.err()).isZero();
        double aucSmall = Double.parseDouble(labelled.err().replaceAll("(?s).*auc=([0-9.]+).*", "$1"));
        double aucLarge = Double.parseDouble(large.err().replaceAll("(?s).*auc=([0-9.]+).*", "$1"));
        assertThat(aucLarge).isLessThan(aucSmall - 0.1);
        Run unknown = run("score", "--model", out.toString(), "--input", CORPUS.toString(), "--solver", "xl");
        assertThat(unknown.code()).isEqualTo(1);
        assertThat(unknown.err()).contains("corpus.jsonl:1:").contains("'xl'");
    }

    @Test
    void benchPrintsTheOneLineFormatAndSaysNaWithoutTorch() {
        Run bench = run("bench", "--model", MODEL.toString(), "--batch", "2", "--seq", "16", "--seconds", "0.2",
                "--device", "cpu", "--python", "/nonexistent/python");
        assertThat(bench.code()).isZero();
        assertThat(bench.out().strip()).matches("java_tokens_s=\\d+ torch_tokens_s=NA ratio=NA head_share=[0-9.]+ cpu_ratio=NA load=[0-9.]+-[0-9.]+");
    }

    @Test
    void benchNeverTimesTheTinyFixtureForAnotherModel(@TempDir Path dir) throws Exception {
        Path python = java.util.Arrays.stream(System.getenv("PATH").split(java.io.File.pathSeparator))
                .map(p -> Path.of(p, "python3")).filter(Files::isExecutable).findFirst().orElse(null);
        org.junit.jupiter.api.Assumptions.assumeTrue(python != null, "python3 not on PATH");
        for (String f : new String[] {"model.onnx", "tokenizer.json"}) {
            Files.copy(MODEL.resolve(f), dir.resolve(f));
        }
        Files.writeString(dir.resolve("reference.json"), Files.readString(MODEL.resolve("reference.json"))
                .replace("tiny-qwen2-random", "other-model"));
        Run bench = run("bench", "--model", dir.toString(), "--batch", "2", "--seq", "16", "--seconds", "0.2",
                "--device", "cpu", "--python", python.toString());
        assertThat(bench.code()).isZero();
        assertThat(bench.out().strip()).matches("java_tokens_s=\\d+ torch_tokens_s=NA ratio=NA head_share=[0-9.]+ cpu_ratio=NA load=[0-9.]+-[0-9.]+");
        assertThat(bench.err()).contains("torch side skipped: no PyTorch weights for reference 'other-model'");
    }

    @Test
    void missingOrBadOptionsAreUsageErrors(@TempDir Path out) throws Exception {
        assertThat(run("train", "--model", MODEL.toString(), "--out", out.toString()).code()).isEqualTo(2);
        Path bad = out.resolve("bad.jsonl");
        Files.writeString(bad, "{\"text\": \"x\", \"k\": 9, \"n\": 8}\n");
        assertThat(run("train", "--corpus", bad.toString(), "--model", MODEL.toString(), "--out",
                out.resolve("o").toString()).code()).isNotZero();
    }
}
