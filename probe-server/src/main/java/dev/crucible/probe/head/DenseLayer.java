package dev.crucible.probe.head;

/** One fully connected layer: out = W x + b, W stored as [out][in]. */
public record DenseLayer(float[][] weight, float[] bias) {

    public DenseLayer {
        if (weight.length == 0 || weight.length != bias.length) {
            throw new IllegalArgumentException("layer weight rows (" + weight.length
                    + ") must equal bias length (" + bias.length + ") and be > 0");
        }
        int in = weight[0].length;
        for (float[] row : weight) {
            if (row.length != in) {
                throw new IllegalArgumentException("layer weight rows have different widths");
            }
        }
    }

    public int inputDim() {
        return weight[0].length;
    }

    public int outputDim() {
        return weight.length;
    }

    public void apply(float[] x, float[] out) {
        for (int o = 0; o < weight.length; o++) {
            float[] w = weight[o];
            double acc = bias[o];
            for (int i = 0; i < w.length; i++) {
                acc += w[i] * x[i];
            }
            out[o] = (float) acc;
        }
    }
}
