package dev.crucible.probe.train;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.probe.model.ProbeSpec;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * report.json of {@code crucible probe train}: data, selection rule, the selected cell's selection
 * figures, the honest held-out figures beside them (nested CV, permutation band, test corpus),
 * baselines, per-group figures, calibration, reward checks, warnings, timings and the whole sweep.
 */
final class TrainReport {
    private static final ObjectMapper JSON = new ObjectMapper();

    private TrainReport() {
    }

    static void write(TrainConfig cfg, int rows, int positives, int folds, List<String> groups, long tokens,
                      List<CellResult> results, CellResult selected, List<CellResult> members, int[] labels,
                      TrainChecks c, List<SolverFacets.Facet> facets, RvpGain rvpGain, double extractS, double sweepS,
                      double checkS, boolean cacheHit, Path file) throws IOException {
        ObjectNode r = JSON.createObjectNode();
        r.put("corpus", cfg.corpus().toString());
        r.put("reference", cfg.referenceDir().toString());
        r.putObject("band").put("minSolveRate", cfg.band().min()).put("maxSolveRate", cfg.band().max());
        r.put("groupKey", cfg.groupKey());
        r.put("seed", cfg.seed());
        r.putObject("data").put("rows", rows).put("positives", positives).put("negatives", rows - positives)
                .put("groups", new java.util.HashSet<>(groups).size()).put("folds", folds).put("tokens", tokens);
        r.set("reward", ProbeSpec.rewardJson(c.floor().reward()));
        r.putObject("selection").put("rule", "max RVP (on Platt-calibrated logits) among cells within "
                        + cfg.selector().tolerance() + " of the best cross-validated balanced accuracy with calibrated ECE <= "
                        + cfg.selector().maxEce())
                .put("rvpSample", cfg.policy() != null ? "policy file " + cfg.policy()
                        + " (mean logit of the fold heads, calibrated)" : cfg.policySample()
                        + " corpus rows (out-of-fold logits, calibrated)")
                .put("note", "selection figures are the best of " + results.size() + " cells on the folds that "
                        + "chose them: optimistic; heldOut is the figure to quote");
        r.set("selected", cellJson(selected));
        r.set("heldOut", heldOut(c));
        if (members.size() > 1) {
            ObjectNode e = r.putObject("ensemble");
            e.put("rule", "worst-case min of calibrated logits; heads added greedily by the min's out-of-fold AUC");
            ArrayNode heads = e.putArray("heads");
            members.forEach(m -> heads.add(m.cell().label()));
            e.put("auc", round(ProbeMetrics.auc(labels, WorstCaseEnsemble.logits(members))));
            e.put("note", "heldOut and testCorpus figures are of the selected (first) head");
        }
        ObjectNode base = r.putObject("baselines");
        c.baselines().auc().forEach((k, v) -> base.put(k, round(v)));
        base.put("best", c.baselines().best());
        base.put("spearmanScoreLength", round(c.spearmanLength()));
        ObjectNode groupsNode = r.putObject("perGroup");
        c.perGroup().forEach((g, f) -> groupsNode.set(g, figures(f)));
        r.putObject("calibration").put("method", "platt").put("a", round(c.calibration().a()))
                .put("b", round(c.calibration().b()))
                .put("fittedOn", "the selected cell's out-of-fold logits; folded into head.json's last layer");
        r.putObject("rewardCheck").put("invalidFloor", c.floor().reward().reward(0, false))
                .put("floorChosen", c.floor().chosen()).put("minValidReward", round(c.floor().minValidReward()))
                .put("shareOfValidAtOrBelowFloor", round(c.floor().shareAtOrBelowFloor()))
                .put("servedRvp", round(c.servedRvp()));
        ObjectNode panel = r.putObject("rvpGain");
        panel.put("gain", "best-of-" + Math.round(1 / rvpGain.fraction()) + ": in-band share of valid tasks among the "
                        + "top " + Math.round(100 * rvpGain.fraction()) + "% of cross-validated rows by the cell's reward "
                        + "(out of fold, calibrated) minus the share among all; the paper's gain is a short RL run")
                .put("cells", rvpGain.points().size()).put("pearson", round(rvpGain.pearson()))
                .put("spearman", round(rvpGain.spearman()));
        rvpGain.points().stream().filter(RvpGain.Point::selected).findFirst().ifPresent(p ->
                panel.putObject("selected").put("cell", p.cell()).put("rvp", round(p.rvp())).put("gain", round(p.gain())));
        if (!facets.isEmpty()) {
            ArrayNode fs = r.putArray("solverFacets");
            for (SolverFacets.Facet f : facets) {
                ObjectNode fn = fs.addObject().put("solver", f.solver()).put("target", f.target())
                        .put("cells", f.results().size());
                if (f.note() != null) {
                    fn.put("note", f.note());
                }
                if (f.best() != null) {
                    fn.set("best", cellJson(f.best()));
                }
            }
        }
        ArrayNode warn = r.putArray("warnings");
        c.warnings().forEach(w -> warn.addObject().put("kind", w.kind()).put("message", w.message()));
        // the ProbeModel status shape (status.training), so a reconciler can copy it as is
        ObjectNode m = r.putObject("metrics");
        m.put("balancedAccuracy", round(selected.balancedAccuracy())).put("auc", round(selected.auc()))
                .put("f1", round(selected.f1())).put("ece", round(selected.ece()))
                .put("spearman", round(selected.spearman())).put("rewardVariance", round(c.servedRvp()));
        if (c.nested() != null) {
            m.put("heldOutAuc", round(c.nested().figures().auc()));
        }
        m.putObject("selected").put("layer", selected.cell().layer()).put("pooling", selected.cell().pooling())
                .put("architecture", selected.cell().architecture().id());
        m.put("trainedAt", java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString());
        r.putObject("timings").put("extractSeconds", extractS).put("sweepSeconds", sweepS)
                .put("checkSeconds", checkS).put("activationCacheHit", cacheHit).put("threads", cfg.threads());
        ArrayNode sweep = r.putArray("sweep");
        results.stream().sorted((a, b) -> Double.compare(b.balancedAccuracy(), a.balancedAccuracy()))
                .forEach(x -> sweep.add(cellJson(x)));
        JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), r);
    }

    private static ObjectNode heldOut(TrainChecks c) {
        ObjectNode h = JSON.createObjectNode();
        if (c.nested() != null) {
            ObjectNode n = figures(c.nested().figures());
            n.put("method", "nested grouped CV: " + c.nested().outerFolds() + " outer folds, >= "
                    + c.nested().innerFolds() + " inner folds, sweep and selection redone per outer fold");
            c.nested().selectedPerFold().forEach(n.putArray("selectedPerFold")::add);
            h.set("nested", n);
        }
        if (c.band() != null) {
            ObjectNode b = h.putObject("permutationNull");
            b.put("permutations", c.band().permutations()).put("shuffle", "labels within groups, selected cell, "
                            + "same grouped folds")
                    .put("auc5", round(c.band().aucLow())).put("auc95", round(c.band().aucHigh()))
                    .put("balancedAccuracy5", round(c.band().balancedAccuracyLow()))
                    .put("balancedAccuracy95", round(c.band().balancedAccuracyHigh()));
            if (c.nested() != null) {
                b.put("pValueHeldOutAuc", round(c.band().pValue(c.nested().figures().auc())));
            }
        }
        if (c.test() != null) {
            h.set("testCorpus", figures(c.test()));
        }
        return h;
    }

    static ObjectNode figures(HeldOutFigures f) {
        return JSON.createObjectNode().put("rows", f.rows()).put("positives", f.positives())
                .put("auc", round(f.auc())).put("balancedAccuracy", round(f.balancedAccuracy()))
                .put("ece", round(f.ece())).put("meanProbability", round(f.meanProbability()))
                .put("baseRate", round(f.baseRate()));
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
        n.put("eceRaw", round(c.rawEce()));
        n.put("spearmanSolveRate", round(c.spearman()));
        n.put("spearmanBandCloseness", round(c.spearmanBand()));
        n.put("rvp", round(c.rvp()));
        return n;
    }

    static double round(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? v : Math.round(v * 1e5) / 1e5;
    }
}
