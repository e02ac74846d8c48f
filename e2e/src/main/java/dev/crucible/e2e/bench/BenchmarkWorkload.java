package dev.crucible.e2e.bench;

/**
 * The mix of Rollouts: mostly CPU, some single-GPU, some two-node GPU gangs, sized so the GPU part
 * always fits the fake GPU capacity (at most 3/4 of it) (a benchmark that waits for "all Running" must be satisfiable).
 */
public record BenchmarkWorkload(int total, int cpu, int gpu, int gangs, int gangReplicas, int gpusPerGangMember) {

    public static BenchmarkWorkload of(int total, int gpuCapacity) {
        int gangReplicas = 2;
        int perGangMember = 2;
        // At most half the GPUs for gangs and a quarter for single-GPU pods: the default scheduler spreads
        // pods, and single GPUs scattered over every node would otherwise leave no two free on one node.
        int gangs = Math.min(Math.round(total * 0.01f), gpuCapacity / 2 / (gangReplicas * perGangMember));
        int gpu = Math.min(Math.round(total * 0.04f), gpuCapacity / 4);
        return new BenchmarkWorkload(total, total - gpu - gangs, gpu, gangs, gangReplicas, perGangMember);
    }

    public int pods() {
        return cpu + gpu + gangs * gangReplicas;
    }

    /** Which environment the i-th rollout uses; GPU work is spread through the sequence. */
    public String environmentOf(int i) {
        int gpuEvery = gpu == 0 ? Integer.MAX_VALUE : Math.max(1, total / gpu);
        int gangEvery = gangs == 0 ? Integer.MAX_VALUE : Math.max(1, total / gangs);
        if (i % gangEvery == 1 % gangEvery && i / gangEvery < gangs) {
            return "gang";
        }
        if (i % gpuEvery == 0 && i / gpuEvery < gpu) {
            return "gpu";
        }
        return "cpu";
    }
}
