package dev.crucible.probe.train;

import com.fasterxml.jackson.databind.ObjectMapper;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code crucible probe train}: label the corpus with the band, extract (or load cached) activations,
 * sweep layer × pooling × turn aggregation × architecture × balance under grouped cross-validation,
 * select as PROPEL does, refit the chosen cell on all rows, and write a servable probe directory:
 * probe.json, head.json, report.json, sweep.png, calibration.png, checks.png, solve_rate.png,
 * rvp_gain.png, and sweep_solvers.png where the corpus names several solvers.
 */
public final class ProbeTrainer {
    private static final Logger LOG = LoggerFactory.getLogger(ProbeTrainer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The RVP panel's gain is best-of-4: the top quarter by reward. */
    static final double RVP_GAIN_FRACTION = 0.25;

    /** What a run produced, for callers and tests. */
    public record Outcome(CellResult selected, List<CellResult> results, ProbeHead head, Path out,
                          double extractSeconds, double sweepSeconds, boolean cacheHit, TrainChecks checks,
                          List<CellResult> ensemble, List<SolverFacets.Facet> facets, RvpGain rvpGain) {
    }

    private ProbeTrainer() {
    }

    public static Outcome train(TrainConfig cfg) throws Exception {
        long t0 = System.nanoTime();
        List<CorpusRow> rows = CorpusReader.read(cfg.corpus(), true, cfg.groupKey(), cfg.solver());
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
        HeadTrainer trainer = new HeadTrainer(cfg.training());
        List<CellResult> members = cfg.evaluation().ensemble() > 1
                ? WorstCaseEnsemble.select(results, selected, labels, cfg.evaluation().ensemble()) : List.of(selected);
        // served probability = P(in band): each head's Platt fit on its held-out logits, folded into the head
        Logistic1D platt = Logistic1D.calibration(selected.oofLogits(), labels);
        List<ProbeHead> heads = new ArrayList<>();
        double[] served = new double[rows.size()];
        double[] servedPolicy = new double[policyActs == null ? 0 : policyValid.length];
        java.util.Arrays.fill(served, Double.POSITIVE_INFINITY);
        java.util.Arrays.fill(servedPolicy, Double.POSITIVE_INFINITY);
        for (CellResult m : members) {
            SweepCell c = m.cell();
            float[][] mx = sweep.features(c.layer(), c.pooling(), c.turnAggregation());
            ProbeHead h = Logistic1D.calibration(m.oofLogits(), labels).foldInto(trainer.train("head" + heads.size(),
                    mx, labels, all, c.architecture(), c.balance(), cfg.seed()));
            heads.add(h);
            for (int i = 0; i < served.length; i++) {
                served[i] = Math.min(served[i], h.logit(mx[i]));
            }
            if (policyActs != null) {
                float[][] px = policyActs.features(c.layer(), c.pooling(), Pooling.parse(c.turnAggregation()));
                for (int i = 0; i < servedPolicy.length; i++) {
                    servedPolicy[i] = Math.min(servedPolicy[i], h.logit(px[i]));
                }
            }
        }
        ProbeHead head = heads.get(0);
        RewardFloor floor = RewardFloor.check(cfg.reward(), cfg.evaluation().autoFloor(),
                validLogits(served, valid, servedPolicy, policyValid));
        double servedRvp = servedRvp(floor, served, valid, sweep.policySampleRows(), servedPolicy, policyValid);
        long t2 = System.nanoTime();
        TrainChecks checks = checks(cfg, rows, labels, groups, folds, acts, sweep, cells, selected, x, platt,
                floor, servedRvp, head, hit);
        RvpGain rvpGain = RvpGain.of(results, selected, labels, valid, cfg.reward(), RVP_GAIN_FRACTION);
        List<SolverFacets.Facet> facets = cfg.evaluation().solverFacets()
                ? SolverFacets.run(rows, cfg.solver(), results, cfg.band(), sweep, cells, cfg.threads()) : List.of();
        long t3 = System.nanoTime();

        Path out = cfg.out();
        Files.createDirectories(out);
        if (heads.size() == 1) {
            HeadFile.write(head, out.resolve("head.json"));
            ProbeSpec.write(out, "probe-" + s.label().replace('/', '-'), cfg.referenceDir(), s.layer(),
                    Pooling.parse(s.pooling()), Pooling.parse(s.turnAggregation()), List.of("head.json"), floor.reward());
        } else {
            List<ProbeSpec.HeadRef> refs = new ArrayList<>();
            for (int i = 0; i < heads.size(); i++) {
                Path f = out.resolve("head-" + i + ".json");
                HeadFile.write(heads.get(i), f);
                refs.add(new ProbeSpec.HeadRef(f, members.get(i).cell().layer(),
                        Pooling.parse(members.get(i).cell().pooling())));
            }
            ProbeSpec.writeEnsemble(out, "probe-ensemble-" + heads.size(), cfg.referenceDir(),
                    Pooling.parse(s.turnAggregation()), refs, floor.reward());
        }
        double extractS = (t1 - t0) / 1e9;
        double sweepS = (t2 - t1) / 1e9;
        TrainReport.write(cfg, rows.size(), positives, GroupedFolds.count(folds), groups, acts.tokens(), results,
                selected, members, labels, checks, facets, rvpGain, extractS, sweepS, (t3 - t2) / 1e9, hit[0],
                out.resolve("report.json"));
        List<String> archs = cfg.architectures().stream().map(HeadArchitecture::id).toList();
        SweepHeatmap.write(results, selected, layers, poolings, archs, out.resolve("sweep.png"));
        if (!facets.isEmpty()) {
            SweepHeatmap.writeFacets(facets, selected, layers, poolings, archs, out.resolve("sweep_solvers.png"));
        }
        RvpGainPlot.write(rvpGain, out.resolve("rvp_gain.png"));
        CalibrationPlot.write(selected, labels, 10, out.resolve("calibration.png"));
        ChecksPlot.write(selected, checks, out.resolve("checks.png"));
        SolveRatePlot.write(rows, selected, cfg.band(), out.resolve("solve_rate.png"));
        return new Outcome(selected, results, head, out, extractS, sweepS, hit[0], checks, members, facets, rvpGain);
    }

    /** Nested CV, permutation null, test corpus, baselines, per-group figures and warnings. */
    private static TrainChecks checks(TrainConfig cfg, List<CorpusRow> rows, int[] labels, List<String> groups,
                                      int[] folds, TurnActivations acts, ProbeSweep sweep, List<SweepCell> cells,
                                      CellResult selected, float[][] x, Logistic1D platt, RewardFloor floor,
                                      double servedRvp, ProbeHead head, boolean[] hit) throws Exception {
        EvaluationOptions ev = cfg.evaluation();
        HeadTrainer trainer = new HeadTrainer(cfg.training());
        SweepCell s = selected.cell();
        NestedEstimate.Result nested = null;
        if (ev.outerFolds() >= 2) {
            int[] outer = ev.outerFolds() == cfg.folds() ? folds : GroupedFolds.assign(groups, ev.outerFolds(), cfg.seed());
            LOG.info("nested grouped CV: " + GroupedFolds.count(outer) + " outer folds × the sweep");
            nested = NestedEstimate.run(sweep::withFolds, labels, groups, outer, cfg.folds(), cells, cfg.selector(),
                    trainer, cfg.seed(), cfg.threads());
        }
        PermutationNull.Band band = ev.permutations() == 0 ? null : PermutationNull.run(x, labels, groups, folds, s,
                trainer, ev.permutations(), cfg.seed(), cfg.threads());
        HeldOutFigures test = null;
        if (ev.testCorpus() != null) {
            List<CorpusRow> testRows = CorpusReader.read(ev.testCorpus(), true, cfg.groupKey(), cfg.solver());
            TurnActivations ta = activations(cfg, ReferenceSpec.read(cfg.referenceDir()), ev.testCorpus(), testRows,
                    List.of(s.layer()), List.of(s.pooling()), hit);
            float[][] tx = ta.features(s.layer(), s.pooling(), Pooling.parse(s.turnAggregation()));
            int[] ty = testRows.stream().mapToInt(r -> cfg.band().positive(r.k(), r.n()) ? 1 : 0).toArray();
            test = HeldOutFigures.of(ty, java.util.Arrays.stream(tx).mapToDouble(head::logit).toArray());
        }
        ShortcutBaselines.Result baselines = ShortcutBaselines.run(rows, labels, folds, cfg.training(), cfg.seed());
        double[] honest = nested != null ? nested.heldOutLogits() : selected.calibratedLogits();
        double rho = ProbeMetrics.spearman(honest, baselines.logLength());
        List<TrainChecks.Warning> warnings = TrainChecks.warnings(selected, nested, band, baselines, rho, floor,
                ev.baselineMargin());
        warnings.forEach(w -> LOG.warn(w.kind() + ": " + w.message()));
        return new TrainChecks(nested, band, test, baselines, rho, GroupFigures.of(groups, labels, honest), platt,
                servedRvp, floor, warnings);
    }

    /** Served logits of every valid corpus and policy row: what the floor must stay below. */
    private static double[] validLogits(double[] served, boolean[] valid, double[] servedPolicy, boolean[] pValid) {
        java.util.stream.DoubleStream.Builder b = java.util.stream.DoubleStream.builder();
        for (int i = 0; i < served.length; i++) {
            if (valid[i]) {
                b.add(served[i]);
            }
        }
        for (int i = 0; i < servedPolicy.length; i++) {
            if (pValid[i]) {
                b.add(servedPolicy[i]);
            }
        }
        return b.build().toArray();
    }

    /** RVP of the probe that is served (head or ensemble min), with the served floor, on the policy sample. */
    private static double servedRvp(RewardFloor floor, double[] served, boolean[] valid, int[] sample,
                                    double[] servedPolicy, boolean[] pValid) {
        double[] rewards = servedPolicy.length > 0
                ? java.util.stream.IntStream.range(0, servedPolicy.length)
                .mapToDouble(i -> floor.reward().reward(servedPolicy[i], pValid[i])).toArray()
                : java.util.Arrays.stream(sample).mapToDouble(r -> floor.reward().reward(served[r], valid[r])).toArray();
        return ProbeMetrics.variance(rewards);
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
