package dev.crucible.snapshot.gpu;

import java.util.ArrayList;
import java.util.List;

/**
 * Suspends the CUDA state of several processes as one step: if any fails, the ones already
 * suspended are resumed before the error propagates, so a failed snapshot leaves the GPU as it was.
 */
public final class GpuSuspension {

    private final CudaCheckpoint tool;
    private final List<Long> suspended = new ArrayList<>();

    public GpuSuspension(CudaCheckpoint tool) {
        this.tool = tool;
    }

    public void suspendAll(List<Long> pids, long lockTimeoutMs) {
        for (long pid : pids) {
            try {
                tool.suspend(pid, lockTimeoutMs);
                suspended.add(pid);
            } catch (RuntimeException e) {
                resumeAll();
                throw e;
            }
        }
    }

    /** Resumes in reverse order; keeps going past failures and reports the first. */
    public void resumeAll() {
        RuntimeException first = null;
        for (int i = suspended.size() - 1; i >= 0; i--) {
            try {
                tool.resume(suspended.get(i));
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        suspended.clear();
        if (first != null) {
            throw first;
        }
    }

    public List<Long> suspended() {
        return List.copyOf(suspended);
    }
}
