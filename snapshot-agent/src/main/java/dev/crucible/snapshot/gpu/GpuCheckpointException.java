package dev.crucible.snapshot.gpu;

public final class GpuCheckpointException extends RuntimeException {
    public GpuCheckpointException(String message) {
        super(message);
    }
}
