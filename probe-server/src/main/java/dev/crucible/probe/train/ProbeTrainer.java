package dev.crucible.probe.train;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.head.HeadFile;
import dev.crucible.probe.head.ProbeHead;
import dev.crucible.probe.model.ProbeSpec;
import dev.crucible.probe.model.ReferenceModel;
import dev.crucible.probe.model.ReferenceSpec;
import dev.crucible.probe.model.TextTokenizer;
import dev.crucible.probe.pooling.Pooling;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.logging.Logger;

/**
 * {@code crucible probe train}: label the corpus with the band, extract (or load cached) activations,
 * sweep layer × pooling × turn aggregation × architecture × balance under grouped cross-validation,
 * select as PROPEL does, refit the chosen cell on all rows, and write a servable probe directory:
 * probe.json, head.json, report.json, sweep.png, calibration.png.
 */
public final class ProbeTrainer {
    private static final Logger LOG = Logger.getLogger(ProbeTrainer.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a run produced, for callers and tests. */
    public record Outcome(CellResult selected, List<CellResult> results, ProbeHead head, Path out,
                          double extractSeconds, double sweepSeconds, boolean cacheHit) {
    }

    private ProbeTrainer() {
    }

    public static Outcome train(TrainConfig cfg) throws Exception {
        long t0 = System.nanoTime();
        List<CorpusRow> rows = CorpusReader.read(cfg.corpus(), true, cfg.groupKey());
        int[] labels = new int[rows.size()];
        double[] rates = new double[rows.size()];
        boolean[] valid = new boolean[rows.size()];
        List<String> groups = new ArrayList<>();
        int positives = 0;
        for (int i = 0; i < rows.size(); i++) {
            CorpusRow r = rows.get(i);
            labels[i] = cfg.band().positive(r.k(), r.n()) ? 1 : 0;
            positives += labels[i];
            rates[i] = r.solveRate();
            valid[i] = r.valid();
            groups.add(r.group());
        }
        if (positives == 0 || positives == rows.size()) {
            throw new IllegalArgumentException("the band " + cfg.band() + " makes every row "
                    + (positives == 0 ? "negative" : "positive") + "; nothing to learn");
        }
        int[] folds = GroupedFolds.assign(groups, cfg.folds(), cfg.seed());
        ReferenceSpec ref = ReferenceSpec.read(cfg.referenceDir());
        List<Integer> layers = cfg.layers().isEmpty()
                ? java.util.stream.IntStream.range(0, ref.numHiddenStates()).boxed().toList() : cfg.layers();
        for (int l : layers) {
            ref.outputName(l);
        }
        List<String> poolings = cfg.poolings().stream().map(p -> Pooling.parse(p).name()).toList();
        List<String> aggregations = cfg.turnAggregations().stream().map(p -> Pooling.parse(p).name()).toList();

        boolean[] hit = {true};
        TurnActivations acts = activations(cfg, ref, cfg.corpus(), rows, layers, poolings, hit);
        TurnActivations policyActs = null;
        boolean[] policyValid = null;
        if (cfg.policy() != null) {
            List<CorpusRow> policyRows = CorpusReader.read(cfg.policy(), false, cfg.groupKey());
            policyActs = activations(cfg, ref, cfg.policy(), policyRows, layers, poolings, hit);
            policyValid = new boolean[policyRows.size()];
            for (int i = 0; i < policyValid.length; i++) {
                policyValid[i] = policyRows.get(i).valid();
            }
        }
        long t1 = System.nanoTime();

        List<SweepCell> cells = new ArrayList<>();
        for (int l : layers) {
            for (String p : poolings) {
                for (String a : aggregations) {
                    for (HeadArchitecture arch : cfg.architectures()) {
                        for (Balance b : cfg.balances()) {
                            cells.add(new SweepCell(l, p, a, arch, b));
                        }
                    }
                }
            }
        }
        ProbeSweep sweep = new ProbeSweep(acts, labels, rates, valid, folds, cfg.policySample(), cfg.reward(),
                cfg.training(), cfg.seeds(), cfg.seed()).bandCentre((cfg.band().min() + cfg.band().max()) / 2);
        if (policyActs != null) {
            sweep.policySample(policyActs, policyValid);
        }
        LOG.info("sweeping " + cells.size() + " cells × " + GroupedFolds.count(folds) + " folds on "
                + cfg.threads() + " threads");
        List<CellResult> results = sweep.run(cells, cfg.threads());
        CellResult selected = cfg.selector().select(results);
        SweepCell s = selected.cell();
        float[][] x = sweep.features(s.layer(), s.pooling(), s.turnAggregation());
        int[] all = java.util.stream.IntStream.range(0, rows.size()).toArray();
        ProbeHead head = new HeadTrainer(cfg.training()).train("head", x, labels, all, s.architecture(),
                s.balance(), cfg.seed());
        long t2 = System.nanoTime();

        Path out = cfg.out();
        Files.createDirectories(out);
        HeadFile.write(head, out.resolve("head.json"));
        ProbeSpec.write(out, "probe-" + s.label().replace('/', '-'), cfg.referenceDir(), s.layer(),
                Pooling.parse(s.pooling()), Pooling.parse(s.turnAggregation()), List.of("head.json"), cfg.reward());
        double extractS = (t1 - t0) / 1e9;
        double sweepS = (t2 - t1) / 1e9;
        writeReport(cfg, rows.size(), positives, GroupedFolds.count(folds), groups, acts.tokens(), results,
                selected, extractS, sweepS, hit[0], out.resolve("report.json"));
        SweepHeatmap.write(results, selected, layers, poolings,
                cfg.architectures().stream().map(HeadArchitecture::id).toList(), out.resolve("sweep.png"));
        CalibrationPlot.write(selected, labels, 10, out.resolve("calibration.png"));
        return new Outcome(selected, results, head, out, extractS, sweepS, hit[0]);
    }

    /** Extracted once per (file, model, poolings) and cached under out/cache; hit[0] turns false on a miss. */
    private static TurnActivations activations(TrainConfig cfg, ReferenceSpec ref, Path file, List<CorpusRow> rows,
                                               List<Integer> layers, List<String> poolings, boolean[] hit)
            throws Exception {
        Path cache = cfg.out().resolve("cache").resolve("activations-" + cacheKey(file, ref, layers, poolings) + ".bin");
        if (cfg.useCache() && Files.isRegularFile(cache)) {
            LOG.info("activations from cache " + cache);
            return TurnActivations.read(cache);
        }
        hit[0] = false;
        TurnActivations acts;
        try (ReferenceModel model = new ReferenceModel(ref, cfg.device(), cfg.threads());
             TextTokenizer tok = new TextTokenizer(ref.tokenizer(), ref.maxTokens())) {
            acts = TurnActivations.extract(model, tok, rows, layers, poolings, 8192);
        }
        if (cfg.useCache()) {
            acts.write(cache);
        }
        return acts;
    }

    private static void writeReport(TrainConfig cfg, int rows, int positives, int folds, List<String> groups,
                                    long tokens, List<CellResult> results, CellResult selected, double extractS,
                                    double sweepS, boolean cacheHit, Path file) throws IOException {
        ObjectNode r = JSON.createObjectNode();
        r.put("corpus", cfg.corpus().toString());
        r.put("reference", cfg.referenceDir().toString());
        r.putObject("band").put("minSolveRate", cfg.band().min()).put("maxSolveRate", cfg.band().max());
        r.put("groupKey", cfg.groupKey());
        r.put("seed", cfg.seed());
        r.putObject("data").put("rows", rows).put("positives", positives).put("negatives", rows - positives)
                .put("groups", new java.util.HashSet<>(groups).size()).put("folds", folds).put("tokens", tokens);
        r.set("reward", ProbeSpec.rewardJson(cfg.reward()));
        r.putObject("selection").put("rule", "max RVP among cells within " + cfg.selector().tolerance()
                        + " of the best cross-validated balanced accuracy with ECE <= " + cfg.selector().maxEce())
                .put("rvpSample", cfg.policy() != null ? "policy file " + cfg.policy()
                        + " (mean logit of the fold heads)" : cfg.policySample() + " corpus rows (out-of-fold logits)");
        r.set("selected", cellJson(selected));
        // the ProbeModel status shape (status.training), so a reconciler can copy it as is
        ObjectNode m = r.putObject("metrics");
        m.put("balancedAccuracy", round(selected.balancedAccuracy())).put("auc", round(selected.auc()))
                .put("f1", round(selected.f1())).put("ece", round(selected.ece()))
                .put("spearman", round(selected.spearman())).put("rewardVariance", round(selected.rvp()));
        m.putObject("selected").put("layer", selected.cell().layer()).put("pooling", selected.cell().pooling())
                .put("architecture", selected.cell().architecture().id());
        m.put("trainedAt", java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        r.putObject("timings").put("extractSeconds", extractS).put("sweepSeconds", sweepS)
                .put("activationCacheHit", cacheHit).put("threads", cfg.threads());
        ArrayNode sweep = r.putArray("sweep");
        results.stream().sorted((a, b) -> Double.compare(b.balancedAccuracy(), a.balancedAccuracy()))
                .forEach(c -> sweep.add(cellJson(c)));
        JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), r);
    }

    private static ObjectNode cellJson(CellResult c) {
        ObjectNode n = JSON.createObjectNode();
        n.put("layer", c.cell().layer());
        n.put("pooling", c.cell().pooling());
        n.put("turnAggregation", c.cell().turnAggregation());
        n.put("architecture", c.cell().architecture().id());
        n.put("balance", c.cell().balance().id());
        n.put("balancedAccuracy", round(c.balancedAccuracy()));
        n.put("balancedAccuracyStd", round(c.balancedAccuracyStd()));
        n.put("auc", round(c.auc()));
        n.put("f1", round(c.f1()));
        n.put("ece", round(c.ece()));
        n.put("spearmanSolveRate", round(c.spearman()));
        n.put("spearmanBandCloseness", round(c.spearmanBand()));
        n.put("rvp", round(c.rvp()));
        return n;
    }

    private static double round(double v) {
        return Double.isNaN(v) ? v : Math.round(v * 1e5) / 1e5;
    }

    /** Same corpus, model, tokenizer and poolings → same activations; anything else misses. */
    private static String cacheKey(Path file, ReferenceSpec ref, List<Integer> layers, List<String> poolings)
            throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        for (Path p : new Path[] {file, ref.tokenizer()}) {
            try (InputStream in = Files.newInputStream(p)) {
                md.update(in.readAllBytes());
            }
        }
        md.update((ref.onnx().toAbsolutePath() + "|" + Files.size(ref.onnx()) + "|"
                + Files.getLastModifiedTime(ref.onnx()).toMillis() + "|" + ref.maxTokens() + "|"
                + String.join(",", poolings) + "|" + layers).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(md.digest()).substring(0, 16);
    }
}
