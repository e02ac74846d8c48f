package dev.crucible.probe.head;

import java.util.List;

/**
 * One or more heads over the same features, combined by worst-case min (PROPEL eq. 4, after Coste
 * et al.): the policy only gets a high reward when every probe agrees, which resists exploiting one
 * probe's quirks. Taking the min of logits equals the min of rewards because every reward
 * composition is monotone in the logit.
 */
public record ProbeEnsemble(List<ProbeHead> heads) {

    public ProbeEnsemble {
        if (heads.isEmpty()) {
            throw new IllegalArgumentException("an ensemble needs at least one head");
        }
        int dim = heads.get(0).inputDim();
        for (ProbeHead h : heads) {
            if (h.inputDim() != dim) {
                throw new IllegalArgumentException("ensemble heads disagree on input width: "
                        + dim + " vs " + h.inputDim() + " (" + h.name() + ")");
            }
        }
        heads = List.copyOf(heads);
    }

    public int inputDim() {
        return heads.get(0).inputDim();
    }

    /** Per-head logits, in head order. */
    public double[] logits(float[] features) {
        double[] out = new double[heads.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = heads.get(i).logit(features);
        }
        return out;
    }

    public static double worstCase(double[] logits) {
        double min = Double.POSITIVE_INFINITY;
        for (double l : logits) {
            min = Math.min(min, l);
        }
        return min;
    }
}
