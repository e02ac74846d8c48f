package dev.crucible.probe.train;

import dev.crucible.probe.head.DenseLayer;
import dev.crucible.probe.head.HeadArchitecture;
import dev.crucible.probe.head.ProbeHead;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Trains one probe head with binary cross-entropy on logits, AdamW, ReLU hidden layers, and early
 * stopping on an inner validation slice, in plain Java: the heads are tiny (a few thousand
 * weights), so a framework would cost more in start-up than it saves.
 */
public final class HeadTrainer {
    private final TrainingOptions options;

    public HeadTrainer(TrainingOptions options) {
        this.options = options;
    }

    /**
     * @param x features per row
     * @param y labels per row (0/1)
     * @param rows the rows to train on (indices into x)
     */
    public ProbeHead train(String name, float[][] x, int[] y, int[] rows, HeadArchitecture arch,
                           Balance balance, long seed) {
        Random rnd = new Random(seed);
        int[] use = balance == Balance.DOWNSAMPLE ? downsample(y, rows, rnd) : rows.clone();
        shuffle(use, rnd);
        int nVal = (int) Math.round(use.length * options.validationFraction());
        if (use.length - nVal < 2 || nVal < 2) {
            nVal = 0;
        }
        int[] val = Arrays.copyOfRange(use, 0, nVal);
        int[] fit = Arrays.copyOfRange(use, nVal, use.length);
        int dim = x[0].length;
        float[] mean = new float[dim];
        float[] scale = new float[dim];
        standardisation(x, fit, mean, scale);
        double posWeight = 1.0;
        if (balance == Balance.WEIGHTED) {
            int pos = 0;
            for (int r : fit) {
                pos += y[r];
            }
            int neg = fit.length - pos;
            posWeight = pos == 0 || neg == 0 ? 1.0 : (double) neg / pos;
        }
        float[][] z = new float[x.length][];
        for (int r : use) {
            z[r] = new float[dim];
            for (int d = 0; d < dim; d++) {
                z[r][d] = (x[r][d] - mean[d]) / scale[d];
            }
        }
        Net net = new Net(dim, arch.hidden(), rnd);
        double best = Double.POSITIVE_INFINITY;
        Net bestNet = net.copy();
        int sinceBest = 0;
        for (int epoch = 0; epoch < options.maxEpochs(); epoch++) {
            shuffle(fit, rnd);
            for (int s = 0; s < fit.length; s += options.batchSize()) {
                int e = Math.min(fit.length, s + options.batchSize());
                net.step(z, y, fit, s, e, posWeight, options);
            }
            if (nVal == 0) {
                bestNet = net;
                continue;
            }
            double loss = net.loss(z, y, val, posWeight);
            if (loss < best - 1e-5) {
                best = loss;
                bestNet = net.copy();
                sinceBest = 0;
            } else if (++sinceBest >= options.patience()) {
                break;
            }
        }
        return bestNet.toHead(name, arch, mean, scale);
    }

    private static int[] downsample(int[] y, int[] rows, Random rnd) {
        List<Integer> pos = new ArrayList<>();
        List<Integer> neg = new ArrayList<>();
        for (int r : rows) {
            (y[r] == 1 ? pos : neg).add(r);
        }
        java.util.Collections.shuffle(pos, rnd);
        java.util.Collections.shuffle(neg, rnd);
        int n = Math.min(pos.size(), neg.size());
        if (n == 0) {
            return rows.clone();
        }
        int[] out = new int[2 * n];
        for (int i = 0; i < n; i++) {
            out[2 * i] = pos.get(i);
            out[2 * i + 1] = neg.get(i);
        }
        return out;
    }

    private static void standardisation(float[][] x, int[] rows, float[] mean, float[] scale) {
        int dim = mean.length;
        double[] m = new double[dim];
        double[] v = new double[dim];
        for (int r : rows) {
            for (int d = 0; d < dim; d++) {
                m[d] += x[r][d];
            }
        }
        for (int d = 0; d < dim; d++) {
            m[d] /= rows.length;
        }
        for (int r : rows) {
            for (int d = 0; d < dim; d++) {
                double diff = x[r][d] - m[d];
                v[d] += diff * diff;
            }
        }
        for (int d = 0; d < dim; d++) {
            mean[d] = (float) m[d];
            double sd = Math.sqrt(v[d] / rows.length);
            scale[d] = (float) (sd > 1e-6 ? sd : 1.0);   // constant features stay unscaled
        }
    }

    private static void shuffle(int[] a, Random rnd) {
        for (int i = a.length - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    /** A dense ReLU network with AdamW state; weights flat as [out][in] per layer. */
    private static final class Net {
        final int[] sizes;
        final double[][] w;
        final double[][] b;
        final double[][] mw;
        final double[][] vw;
        final double[][] mb;
        final double[][] vb;
        int t;

        Net(int in, int[] hidden, Random rnd) {
            sizes = new int[hidden.length + 2];
            sizes[0] = in;
            System.arraycopy(hidden, 0, sizes, 1, hidden.length);
            sizes[sizes.length - 1] = 1;
            int n = sizes.length - 1;
            w = new double[n][];
            b = new double[n][];
            mw = new double[n][];
            vw = new double[n][];
            mb = new double[n][];
            vb = new double[n][];
            for (int l = 0; l < n; l++) {
                int fanIn = sizes[l];
                int fanOut = sizes[l + 1];
                w[l] = new double[fanIn * fanOut];
                double bound = 1.0 / Math.sqrt(fanIn);   // torch.nn.Linear's default init range
                for (int i = 0; i < w[l].length; i++) {
                    w[l][i] = (rnd.nextDouble() * 2 - 1) * bound;
                }
                b[l] = new double[fanOut];
                mw[l] = new double[w[l].length];
                vw[l] = new double[w[l].length];
                mb[l] = new double[fanOut];
                vb[l] = new double[fanOut];
            }
        }

        private Net(Net o) {
            sizes = o.sizes;
            w = deep(o.w);
            b = deep(o.b);
            mw = deep(o.mw);
            vw = deep(o.vw);
            mb = deep(o.mb);
            vb = deep(o.vb);
            t = o.t;
        }

        Net copy() {
            return new Net(this);
        }

        private static double[][] deep(double[][] a) {
            double[][] c = new double[a.length][];
            for (int i = 0; i < a.length; i++) {
                c[i] = a[i].clone();
            }
            return c;
        }

        /** Forward pass keeping every layer's post-activation output; acts[0] is the input. */
        double[][] forward(float[] x) {
            int n = w.length;
            double[][] acts = new double[n + 1][];
            acts[0] = new double[x.length];
            for (int i = 0; i < x.length; i++) {
                acts[0][i] = x[i];
            }
            for (int l = 0; l < n; l++) {
                int in = sizes[l];
                int out = sizes[l + 1];
                double[] a = acts[l];
                double[] o = new double[out];
                for (int j = 0; j < out; j++) {
                    double s = b[l][j];
                    int base = j * in;
                    for (int i = 0; i < in; i++) {
                        s += w[l][base + i] * a[i];
                    }
                    o[j] = l < n - 1 ? Math.max(0, s) : s;
                }
                acts[l + 1] = o;
            }
            return acts;
        }

        double loss(float[][] z, int[] y, int[] rows, double posWeight) {
            double sum = 0;
            double wsum = 0;
            for (int r : rows) {
                double logit = forward(z[r])[w.length][0];
                double weight = y[r] == 1 ? posWeight : 1.0;
                // numerically stable BCE with logits
                double l = Math.max(logit, 0) - logit * y[r] + Math.log1p(Math.exp(-Math.abs(logit)));
                sum += weight * l;
                wsum += weight;
            }
            return sum / wsum;
        }

        void step(float[][] z, int[] y, int[] rows, int from, int to, double posWeight, TrainingOptions o) {
            int n = w.length;
            double[][] gw = new double[n][];
            double[][] gb = new double[n][];
            for (int l = 0; l < n; l++) {
                gw[l] = new double[w[l].length];
                gb[l] = new double[b[l].length];
            }
            double wsum = 0;
            for (int k = from; k < to; k++) {
                int r = rows[k];
                double[][] acts = forward(z[r]);
                double weight = y[r] == 1 ? posWeight : 1.0;
                wsum += weight;
                double p = dev.crucible.probe.head.ProbeHead.sigmoid(acts[n][0]);
                double[] delta = {weight * (p - y[r])};
                for (int l = n - 1; l >= 0; l--) {
                    int in = sizes[l];
                    double[] a = acts[l];
                    double[] prev = l > 0 ? new double[in] : null;
                    for (int j = 0; j < delta.length; j++) {
                        double d = delta[j];
                        if (d == 0) {
                            continue;
                        }
                        gb[l][j] += d;
                        int base = j * in;
                        for (int i = 0; i < in; i++) {
                            gw[l][base + i] += d * a[i];
                            if (prev != null) {
                                prev[i] += d * w[l][base + i];
                            }
                        }
                    }
                    if (prev != null) {
                        for (int i = 0; i < in; i++) {
                            if (a[i] <= 0) {
                                prev[i] = 0;   // ReLU gradient
                            }
                        }
                        delta = prev;
                    }
                }
            }
            t++;
            double b1 = 0.9;
            double b2 = 0.999;
            double c1 = 1 - Math.pow(b1, t);
            double c2 = 1 - Math.pow(b2, t);
            for (int l = 0; l < n; l++) {
                adamW(w[l], gw[l], mw[l], vw[l], wsum, c1, c2, o.learningRate(), o.weightDecay());
                adamW(b[l], gb[l], mb[l], vb[l], wsum, c1, c2, o.learningRate(), 0.0);
            }
        }

        private static void adamW(double[] p, double[] g, double[] m, double[] v, double norm, double c1,
                                  double c2, double lr, double wd) {
            for (int i = 0; i < p.length; i++) {
                double gi = g[i] / norm;
                m[i] = 0.9 * m[i] + 0.1 * gi;
                v[i] = 0.999 * v[i] + 0.001 * gi * gi;
                p[i] -= lr * (wd * p[i] + (m[i] / c1) / (Math.sqrt(v[i] / c2) + 1e-8));
            }
        }

        ProbeHead toHead(String name, HeadArchitecture arch, float[] mean, float[] scale) {
            List<DenseLayer> layers = new ArrayList<>();
            for (int l = 0; l < w.length; l++) {
                int in = sizes[l];
                int out = sizes[l + 1];
                float[][] wf = new float[out][in];
                float[] bf = new float[out];
                for (int j = 0; j < out; j++) {
                    for (int i = 0; i < in; i++) {
                        wf[j][i] = (float) w[l][j * in + i];
                    }
                    bf[j] = (float) b[l][j];
                }
                layers.add(new DenseLayer(wf, bf));
            }
            return new ProbeHead(name, arch, mean, scale, layers);
        }
    }
}
