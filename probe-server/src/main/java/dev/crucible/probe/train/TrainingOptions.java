package dev.crucible.probe.train;

/**
 * Optimiser settings of a probe head (PROPEL appendix 14 uses AdamW with early stopping): AdamW
 * learning rate and decoupled weight decay, mini-batch size, epoch cap, and patience on the loss
 * of an inner validation slice of the training rows.
 */
public record TrainingOptions(double learningRate, double weightDecay, int batchSize, int maxEpochs,
                              int patience, double validationFraction) {
    public static final TrainingOptions DEFAULT = new TrainingOptions(5e-3, 1e-2, 32, 80, 8, 0.15);
}
