package dev.crucible.probe.model;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frozen reference model in ONNX Runtime. One forward pass over a right-padded batch returns
 * the requested hidden states per sequence, unpadded. Right padding is exact for a causal decoder:
 * real tokens never attend to the pads after them.
 */
public final class ReferenceModel implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReferenceModel.class);

    private ReferenceSpec spec;
    private final OrtEnvironment env;
    private final OrtSession session;
    private final String device;
    private final boolean wantsMask;
    private final boolean wantsTokenTypes;
    private final boolean wantsPositions;

    public ReferenceModel(ReferenceSpec spec, Device device, int cpuThreads) throws OrtException {
        this.spec = spec;
        this.env = OrtEnvironment.getEnvironment();
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        if (cpuThreads > 0) {
            options.setIntraOpNumThreads(cpuThreads);   // 0 keeps ORT's default: one per physical core
        }
        // a transformer is one chain of operators: a parallel executor would only add an idle pool
        options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
        options.setInterOpNumThreads(1);
        // batches repeat few shapes (the batcher packs by length): the arena and memory patterns reuse
        // one plan per shape instead of allocating per operator (ORT's defaults, stated so they stay on)
        options.setCPUArenaAllocator(true);
        options.setMemoryPatternOptimization(true);
        // idle intra-op threads sleep instead of spinning: on a shared or CPU-limited node a spinning
        // pool burns the cores the forward pass needs (MiniLM, 2 threads, loaded 2-core machine: 3.5x
        // PyTorch per CPU second without spinning, 2.9x with it; probe-server README)
        options.addConfigEntry("session.intra_op.allow_spinning", "0");
        String chosen = "cpu";
        if (device != Device.CPU) {
            try {
                options.addCUDA(0);
                chosen = "cuda";
            } catch (OrtException | RuntimeException | UnsatisfiedLinkError e) {
                if (device == Device.CUDA) {
                    throw new OrtException("device cuda requested but the CUDA execution provider is"
                            + " unavailable: " + e.getMessage()
                            + " (build with -Pcuda for the onnxruntime_gpu artifact)");
                }
                LOG.info("CUDA execution provider unavailable (" + e.getMessage() + "); using CPU");
            }
        }
        this.session = env.createSession(spec.onnx().toString(), options);
        this.device = chosen;
        this.wantsMask = session.getInputNames().contains("attention_mask");
        this.wantsTokenTypes = session.getInputNames().contains("token_type_ids");
        this.wantsPositions = session.getInputNames().contains("position_ids");
        if (spec.numHiddenStates() < 1 || spec.hiddenSize() < 1) {
            this.spec = inferShape(spec);
        }
        checkInputsAndOutputs();
        LOG.info("reference model " + spec.name() + " loaded on " + chosen);
    }

    /**
     * One line naming what an export lacks or adds, before any forward pass: ONNX Runtime's own
     * errors are stack traces that name neither the file nor the fix.
     */
    private void checkInputsAndOutputs() throws OrtException {
        Set<String> known = Set.of("input_ids", "attention_mask", "token_type_ids", "position_ids");
        if (!session.getInputNames().contains("input_ids")) {
            throw new OrtException("model " + spec.onnx() + " has no input 'input_ids' (its inputs: "
                    + session.getInputNames() + ")");
        }
        for (String in : session.getInputNames()) {
            if (!known.contains(in)) {
                throw new OrtException("model " + spec.onnx() + " needs input '" + in + "', which the probe server "
                        + "cannot supply (it feeds input_ids, attention_mask, token_type_ids = 0, position_ids = "
                        + "0..n-1); export it without that input");
            }
        }
        Set<String> outs = session.getOutputNames();
        for (int l = 0; l < spec.numHiddenStates(); l++) {
            String name = spec.outputName(l);
            if (!outs.contains(name)) {
                throw new OrtException("model " + spec.onnx() + " has no output '" + name + "' but its reference "
                        + "spec says " + spec.numHiddenStates() + " hidden states (outputs: " + abbreviated(outs)
                        + "); fix numHiddenStates / hiddenStateOutput or export every hidden state");
            }
        }
    }

    private static String abbreviated(Set<String> names) {
        List<String> l = List.copyOf(names);
        return l.size() <= 8 ? l.toString() : l.subList(0, 8) + " and " + (l.size() - 8) + " more";
    }

    /** Counts hidden-state outputs named by the pattern and reads their last dimension. */
    private ReferenceSpec inferShape(ReferenceSpec s) throws OrtException {
        var outputs = session.getOutputInfo();
        int states = 0;
        int hidden = 0;
        while (outputs.containsKey(String.format(s.hiddenStateOutput(), states))) {
            var info = outputs.get(String.format(s.hiddenStateOutput(), states)).getInfo();
            if (info instanceof ai.onnxruntime.TensorInfo t && t.getShape().length == 3) {
                hidden = (int) t.getShape()[2];
            }
            states++;
        }
        if (states == 0 || hidden < 1) {
            throw new OrtException("model " + s.onnx() + " has no outputs named like '" + s.hiddenStateOutput()
                    + "' with a static hidden size; export it with hidden states as outputs");
        }
        return s.withShape(states, hidden);
    }

    public ReferenceSpec spec() {
        return spec;
    }

    public String device() {
        return device;
    }

    /**
     * Runs the batch and returns, for each requested layer, per sequence a [len][hidden] matrix.
     *
     * @param sequences token ids, each non-empty
     * @param layers hidden-state indices (0 = embeddings)
     */
    public Map<Integer, float[][][]> forward(List<long[]> sequences, int... layers) throws OrtException {
        int batch = sequences.size();
        int maxLen = 0;
        for (long[] s : sequences) {
            if (s.length == 0) {
                throw new IllegalArgumentException("empty token sequence");
            }
            maxLen = Math.max(maxLen, s.length);
        }
        long[] ids = new long[batch * maxLen];
        long[] mask = new long[batch * maxLen];
        for (int b = 0; b < batch; b++) {
            long[] s = sequences.get(b);
            System.arraycopy(s, 0, ids, b * maxLen, s.length);
            java.util.Arrays.fill(mask, b * maxLen, b * maxLen + s.length, 1L);
        }
        long[] shape = {batch, maxLen};
        Set<String> outputs = new LinkedHashSet<>();
        for (int layer : layers) {
            outputs.add(spec.outputName(layer));
        }
        Map<String, OnnxTensor> inputs = new HashMap<>();
        try (OnnxTensor idTensor = OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape);
             OnnxTensor maskTensor = OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape)) {
            inputs.put("input_ids", idTensor);
            if (wantsMask) {
                inputs.put("attention_mask", maskTensor);
            }
            // encoders exported with segment ids (BERT-style) get segment 0, decoders positions 0..n-1
            long[] pos = new long[wantsPositions ? ids.length : 0];
            for (int i = 0; i < pos.length; i++) {
                pos[i] = i % maxLen;
            }
            try (OnnxTensor types = wantsTokenTypes ? OnnxTensor.createTensor(env, LongBuffer.wrap(new long[ids.length]), shape) : null;
                 OnnxTensor positions = wantsPositions ? OnnxTensor.createTensor(env, LongBuffer.wrap(pos), shape) : null;
                 OrtSession.Result result = run(inputs, types, positions, outputs)) {
                Map<Integer, float[][][]> out = new HashMap<>();
                int hidden = spec.hiddenSize();
                for (int layer : layers) {
                    OnnxTensor t = (OnnxTensor) result.get(spec.outputName(layer)).orElseThrow();
                    FloatBuffer fb = t.getFloatBuffer();
                    float[][][] perSeq = new float[batch][][];
                    for (int b = 0; b < batch; b++) {
                        int len = sequences.get(b).length;
                        float[][] h = new float[len][hidden];
                        for (int i = 0; i < len; i++) {
                            fb.position((b * maxLen + i) * hidden);
                            fb.get(h[i]);
                        }
                        perSeq[b] = h;
                    }
                    out.put(layer, perSeq);
                }
                return out;
            }
        }
    }

    private OrtSession.Result run(Map<String, OnnxTensor> inputs, OnnxTensor types, OnnxTensor positions,
                                  Set<String> outputs) throws OrtException {
        if (types != null) {
            inputs.put("token_type_ids", types);
        }
        if (positions != null) {
            inputs.put("position_ids", positions);
        }
        return session.run(inputs, outputs);
    }

    @Override
    public void close() throws OrtException {
        session.close();
    }
}
