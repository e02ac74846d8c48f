package dev.crucible.verifier.sandbox;

/**
 * What a box may use; 0 means "no limit of this kind".
 *
 * @param memoryBytes  resident memory (cgroup; RLIMIT_AS when not root)
 * @param pids         processes and threads at once (cgroup pids; RLIMIT_NPROC when not root)
 * @param millicores   CPU bandwidth (cgroup cpu quota; not enforced without cgroups)
 * @param cpuSeconds   CPU time of the whole box (cgroup cpuacct, watched; RLIMIT_CPU per process when not root)
 * @param diskBytes    bytes in the writable folders (held by the spec's {@link DiskVolume} when it has one, else checked
 *                     every 2 s) and the largest file (RLIMIT_FSIZE)
 * @param tmpBytes     size of the box's fresh /tmp (a tmpfs)
 */
public record BoxLimits(long memoryBytes, int pids, long millicores, long cpuSeconds, long diskBytes, long tmpBytes) {
    /** Processes when nothing says otherwise: bounds a fork bomb, ample for compilers and test runners. */
    public static final int DEFAULT_PIDS = 1024;
    public static final long DEFAULT_TMP = 512L << 20;

    public static BoxLimits defaults() { return new BoxLimits(0, DEFAULT_PIDS, 0, 0, 0, DEFAULT_TMP); }

    /**
     * From an environment's {@code spec.resources} (quantities, any may be null) and a wall-clock
     * budget: CPU time is the CPU share times that budget, as a pod's quota would allow.
     */
    public static BoxLimits of(String cpu, String memory, String ephemeralStorage, long wallSeconds) {
        long mc = Quantities.millicores(cpu, "spec.resources.cpu");
        long mem = Quantities.bytes(memory, "spec.resources.memory");
        long disk = Quantities.bytes(ephemeralStorage, "spec.resources.ephemeralStorage");
        long cpuSeconds = mc > 0 && wallSeconds > 0 ? Math.max(1, mc * wallSeconds / 1000) : 0;
        long tmp = disk > 0 ? Math.min(disk, DEFAULT_TMP) : DEFAULT_TMP;
        return new BoxLimits(mem, DEFAULT_PIDS, mc, cpuSeconds, disk, tmp);
    }

    public BoxLimits withPids(int n) { return new BoxLimits(memoryBytes, n, millicores, cpuSeconds, diskBytes, tmpBytes); }

    public BoxLimits withCpuSeconds(long s) { return new BoxLimits(memoryBytes, pids, millicores, s, diskBytes, tmpBytes); }

    public BoxLimits withMemory(long b) { return new BoxLimits(b, pids, millicores, cpuSeconds, diskBytes, tmpBytes); }

    public BoxLimits withDisk(long b) { return new BoxLimits(memoryBytes, pids, millicores, cpuSeconds, b, tmpBytes); }
}
