package dev.crucible.probe.train;

import dev.crucible.probe.model.ReferenceModel;
import dev.crucible.probe.model.TextTokenizer;
import dev.crucible.probe.pooling.Pooling;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per-turn pooled activations of a corpus for every (layer, token pooling): the expensive part of
 * training, so it runs once (one forward pass per turn for all swept layers at a time; only those
 * layers are fetched, which bounds memory on deep models) and is cached on disk.
 * Indexing: {@code get(layer, pooling)[row][turn]} is a pooled vector.
 */
public final class TurnActivations {
    private static final Logger LOG = LoggerFactory.getLogger(TurnActivations.class);
    private static final int MAGIC = 0x50524F43;   // "PROC": v2, with layer ids

    private final int[] layers;
    private final List<String> poolings;
    private final float[][][][][] data;   // [layer][pooling][row][turn][dim]
    private final long tokens;

    private TurnActivations(int[] layers, List<String> poolings, float[][][][][] data, long tokens) {
        this.layers = layers;
        this.poolings = List.copyOf(poolings);
        this.data = data;
        this.tokens = tokens;
    }

    public int[] layers() { return layers.clone(); }
    public List<String> poolings() { return poolings; }
    public long tokens() { return tokens; }

    public float[][][] get(int layer, String pooling) {
        int p = poolings.indexOf(pooling);
        int l = java.util.Arrays.binarySearch(layers, layer);
        if (p < 0 || l < 0) {
            throw new IllegalArgumentException("layer " + layer + " / pooling " + pooling + " was not extracted");
        }
        return data[l][p];
    }

    /** Aggregated features per row for one (layer, token pooling, turn aggregation). */
    public float[][] features(int layer, String pooling, Pooling turnAggregation) {
        float[][][] perTurn = get(layer, pooling);
        float[][] out = new float[perTurn.length][];
        for (int r = 0; r < perTurn.length; r++) {
            out[r] = turnAggregation.pool(perTurn[r]);
        }
        return out;
    }

    /** Extracts, batching turns of similar length under a padded-token budget. */
    public static TurnActivations extract(ReferenceModel model, TextTokenizer tokenizer, List<CorpusRow> rows,
                                          List<Integer> layerList, List<String> poolings, int tokenBudget)
            throws Exception {
        int[] all = layerList.stream().mapToInt(Integer::intValue).distinct().sorted().toArray();
        int layers = all.length;
        List<Pooling> pools = poolings.stream().map(Pooling::parse).toList();
        record Turn(int row, int turn, long[] ids) {
        }
        List<Turn> turns = new ArrayList<>();
        for (int r = 0; r < rows.size(); r++) {
            List<String> t = rows.get(r).turns();
            for (int j = 0; j < t.size(); j++) {
                long[] ids = tokenizer.encode(t.get(j));
                if (ids.length == 0) {
                    throw new IllegalArgumentException("row " + rows.get(r).id() + " turn " + j + " has no tokens");
                }
                turns.add(new Turn(r, j, ids));
            }
        }
        turns.sort(Comparator.comparingInt(t -> t.ids().length));
        float[][][][][] data = new float[layers][pools.size()][rows.size()][][];
        for (int l = 0; l < layers; l++) {
            for (int p = 0; p < pools.size(); p++) {
                for (int r = 0; r < rows.size(); r++) {
                    data[l][p][r] = new float[rows.get(r).turns().size()][];
                }
            }
        }
        long tokens = 0;
        int i = 0;
        while (i < turns.size()) {
            int j = i;
            int maxLen = 0;
            while (j < turns.size()) {
                int len = Math.max(maxLen, turns.get(j).ids().length);
                if (j > i && (long) len * (j - i + 1) > tokenBudget) {
                    break;
                }
                maxLen = len;
                j++;
            }
            List<Turn> batch = turns.subList(i, j);
            var states = model.forward(batch.stream().map(Turn::ids).toList(), all);
            for (int l = 0; l < layers; l++) {
                float[][][] h = states.get(all[l]);
                for (int b = 0; b < batch.size(); b++) {
                    Turn t = batch.get(b);
                    for (int p = 0; p < pools.size(); p++) {
                        data[l][p][t.row()][t.turn()] = pools.get(p).pool(h[b]);
                    }
                }
            }
            for (Turn t : batch) {
                tokens += t.ids().length;
            }
            i = j;
        }
        LOG.info("extracted activations for " + rows.size() + " rows, " + turns.size() + " turns, "
                + tokens + " tokens");
        return new TurnActivations(all, poolings, data, tokens);
    }

    public void write(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16))) {
            out.writeInt(MAGIC);
            out.writeInt(layers.length);
            for (int l : layers) {
                out.writeInt(l);
            }
            out.writeInt(poolings.size());
            for (String p : poolings) {
                out.writeUTF(p);
            }
            out.writeLong(tokens);
            int rows = data[0][0].length;
            out.writeInt(rows);
            for (float[][][][] layer : data) {
                for (float[][][] pooling : layer) {
                    for (float[][] row : pooling) {
                        out.writeInt(row.length);
                        for (float[] v : row) {
                            out.writeInt(v.length);
                            for (float x : v) {
                                out.writeFloat(x);
                            }
                        }
                    }
                }
            }
        }
    }

    public static TurnActivations read(Path file) throws IOException {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
            if (in.readInt() != MAGIC) {
                throw new IOException(file + " is not an activation cache");
            }
            int[] layerIds = new int[in.readInt()];
            for (int l = 0; l < layerIds.length; l++) {
                layerIds[l] = in.readInt();
            }
            int layers = layerIds.length;
            int np = in.readInt();
            List<String> poolings = new ArrayList<>();
            for (int p = 0; p < np; p++) {
                poolings.add(in.readUTF());
            }
            long tokens = in.readLong();
            int rows = in.readInt();
            float[][][][][] data = new float[layers][np][rows][][];
            for (int l = 0; l < layers; l++) {
                for (int p = 0; p < np; p++) {
                    for (int r = 0; r < rows; r++) {
                        float[][] row = new float[in.readInt()][];
                        for (int t = 0; t < row.length; t++) {
                            row[t] = new float[in.readInt()];
                            for (int d = 0; d < row[t].length; d++) {
                                row[t][d] = in.readFloat();
                            }
                        }
                        data[l][p][r] = row;
                    }
                }
            }
            return new TurnActivations(layerIds, poolings, data, tokens);
        }
    }
}
