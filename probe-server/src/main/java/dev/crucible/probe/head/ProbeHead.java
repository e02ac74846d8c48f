package dev.crucible.probe.head;

import java.util.List;

/**
 * A trained probe head: feature standardisation, then dense layers with ReLU between them, ending
 * in one logit. Linear, MLP and deep MLP differ only in the number of hidden layers, so one class
 * serves all three and the file format stays the same (see {@link HeadFile}).
 */
public final class ProbeHead {
    private final String name;
    private final HeadArchitecture architecture;
    private final float[] featureMean;
    private final float[] featureScale;
    private final List<DenseLayer> layers;

    public ProbeHead(String name, HeadArchitecture architecture, float[] featureMean,
                     float[] featureScale, List<DenseLayer> layers) {
        if (layers.isEmpty()) {
            throw new IllegalArgumentException("a head needs at least one layer");
        }
        int dim = layers.get(0).inputDim();
        if (featureMean.length != dim || featureScale.length != dim) {
            throw new IllegalArgumentException("featureMean/featureScale length must equal the first"
                    + " layer's input width " + dim);
        }
        for (int i = 1; i < layers.size(); i++) {
            if (layers.get(i).inputDim() != layers.get(i - 1).outputDim()) {
                throw new IllegalArgumentException("layer " + i + " input width "
                        + layers.get(i).inputDim() + " does not match the previous output width "
                        + layers.get(i - 1).outputDim());
            }
        }
        if (layers.get(layers.size() - 1).outputDim() != 1) {
            throw new IllegalArgumentException("the last layer must have exactly one output (the logit)");
        }
        if (layers.size() - 1 != architecture.hidden().length && architecture != HeadArchitecture.DEEP_MLP) {
            // deep MLPs may have any depth >= 2; linear and MLP are fixed by name
            throw new IllegalArgumentException(architecture.id() + " head must have "
                    + (architecture.hidden().length + 1) + " layers, found " + layers.size());
        }
        this.name = name;
        this.architecture = architecture;
        this.featureMean = featureMean;
        this.featureScale = featureScale;
        this.layers = List.copyOf(layers);
    }

    public String name() { return name; }
    public HeadArchitecture architecture() { return architecture; }
    public int inputDim() { return featureMean.length; }
    public float[] featureMean() { return featureMean; }
    public float[] featureScale() { return featureScale; }
    public List<DenseLayer> layers() { return layers; }

    /** Raw logit for one pooled activation vector. */
    public double logit(float[] features) {
        if (features.length != featureMean.length) {
            throw new IllegalArgumentException("head '" + name + "' expects " + featureMean.length
                    + " features, got " + features.length);
        }
        float[] x = new float[features.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = (features[i] - featureMean[i]) / featureScale[i];
        }
        for (int l = 0; l < layers.size(); l++) {
            DenseLayer layer = layers.get(l);
            float[] y = new float[layer.outputDim()];
            layer.apply(x, y);
            if (l < layers.size() - 1) {
                for (int i = 0; i < y.length; i++) {
                    y[i] = Math.max(0f, y[i]);
                }
            }
            x = y;
        }
        return x[0];
    }

    public static double sigmoid(double z) {
        return z >= 0 ? 1.0 / (1.0 + Math.exp(-z)) : Math.exp(z) / (1.0 + Math.exp(z));
    }
}
