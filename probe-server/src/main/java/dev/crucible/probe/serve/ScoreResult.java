package dev.crucible.probe.serve;

/**
 * The probe's answer for one item: the worst-case logit over the ensemble, its probability, the
 * reward under the model's composition, every head's logit, and the tokens read.
 */
public record ScoreResult(String id, double logit, double probability, double reward, boolean valid,
                          double[] headLogits, int tokens) {
}
