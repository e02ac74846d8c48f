package dev.crucible.cli.probe;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.serve.BatchingOptions;
import dev.crucible.probe.serve.ProbeScorer;
import dev.crucible.probe.serve.ScoreItem;
import dev.crucible.probe.serve.ScoreResult;
import dev.crucible.probe.train.CorpusReader;
import dev.crucible.probe.train.CorpusRow;
import dev.crucible.probe.train.HeldOutFigures;
import dev.crucible.probe.train.LabelBand;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "score", mixinStandardHelpOptions = true,
        description = "Score a JSONL file offline with a probe model; prints one JSON result per line. Rows with "
                + "k and n are labelled with --band, and AUC, balanced accuracy and ECE over them go to stderr.")
final class ProbeScoreCommand implements Callable<Integer> {
    private static final int CHUNK = 64;

    @Option(names = "--model", required = true, description = "probe directory (probe.json)")
    Path model;

    @Option(names = "--input", required = true, description = "JSONL: {id, text|turns, valid}")
    Path input;

    @Option(names = "--output", description = "write results here instead of stdout")
    Path output;

    @Option(names = "--device", defaultValue = "auto", description = "auto, cpu or cuda")
    String device;

    @Option(names = "--band", defaultValue = "1-3/8", description = "positive solve band for labelled rows")
    String band;

    @Option(names = "--solver", description = "labelled rows: take k and n from this solver in the 'solvers' field")
    String solver;

    @Override
    public Integer call() throws Exception {
        try {
            return execute();
        } catch (java.io.IOException | IllegalArgumentException | ai.onnxruntime.OrtException e) {
            // bad input: one clear line naming file/field, not a stack trace
            System.err.println("error: " + e.getMessage());
            return 1;
        }
    }

    private int execute() throws Exception {
        List<CorpusRow> rows = CorpusReader.read(input, false, "group", solver);
        LabelBand labelBand = LabelBand.parse(band);
        List<Integer> labels = new ArrayList<>();
        List<Double> labelledLogits = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        try (ProbeScorer scorer = ProbeScorer.open(model, Device.parse(device), BatchingOptions.DEFAULT,
                new SimpleMeterRegistry());
             PrintStream out = output == null ? new PrintStream(System.out, false, "UTF-8")
                     : new PrintStream(Files.newOutputStream(output), false, "UTF-8")) {
            for (int i = 0; i < rows.size(); i += CHUNK) {
                List<CorpusRow> chunk = rows.subList(i, Math.min(rows.size(), i + CHUNK));
                List<ScoreItem> items = new ArrayList<>();
                for (CorpusRow r : chunk) {
                    items.add(new ScoreItem(r.id(), r.turns(), r.valid()));
                }
                List<ScoreResult> results = scorer.score(items).join();
                for (int j = 0; j < results.size(); j++) {
                    ScoreResult r = results.get(j);
                    ObjectNode n = json.createObjectNode().put("id", r.id()).put("logit", r.logit())
                            .put("probability", r.probability()).put("reward", r.reward()).put("valid", r.valid());
                    if (chunk.get(j).n() > 0) {
                        n.put("k", chunk.get(j).k()).put("n", chunk.get(j).n());
                        labels.add(labelBand.positive(chunk.get(j).k(), chunk.get(j).n()) ? 1 : 0);
                        labelledLogits.add(r.logit());
                    }
                    out.println(json.writeValueAsString(n));
                }
            }
        }
        if (!labels.isEmpty()) {
            HeldOutFigures f = HeldOutFigures.of(labels.stream().mapToInt(Integer::intValue).toArray(),
                    labelledLogits.stream().mapToDouble(Double::doubleValue).toArray());
            System.err.println("labelled rows (band " + band + "): " + f.summary());
        }
        return 0;
    }
}
