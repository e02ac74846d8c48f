package dev.crucible.snapshot.container;

import dev.crucible.snapshot.gpu.CudaCheckpoint;
import dev.crucible.snapshot.target.ProcCgroups;
import dev.crucible.snapshot.target.ProcFs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GPU half of a runtime restore. Before the runtime's checkpoint the agent had cuda-checkpoint move
 * each GPU process's device state into host memory (the runtime's CRIU then saves it with the rest), so
 * the processes a runtime restores come back with their CUDA state still checkpointed. The runtime
 * creates the branch's container after the restore call has returned (when the init container lets it),
 * so this waits beside it: once the branch pod's processes whose innermost namespace pid was a GPU
 * process appear, each is resumed (restore + unlock), as the agent's own restores do.
 *
 * <p>Written for GPU nodes; the test machines have no GPU, so only {@link #matching} runs there.
 */
public final class RestoredGpuResume {
    private static final Logger LOG = LoggerFactory.getLogger(RestoredGpuResume.class);
    private static final Pattern POD_DIR = Pattern.compile("/pods/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/");

    private RestoredGpuResume() {
    }

    /** The pod UID in a path under kubelet's pods folder (a branch pod's workspace), or null. */
    public static String podUidOf(String workspace) {
        Matcher m = POD_DIR.matcher(workspace + "/");
        return m.find() ? m.group(1) : null;
    }

    /** Starts the wait; gives up (logged) after {@code within}. */
    public static Thread start(String podUid, Set<Long> gpuNamespacePids, CudaCheckpoint cuda, Duration within) {
        Thread t = new Thread(() -> run(podUid, Set.copyOf(gpuNamespacePids), cuda, within), "crucible-gpu-resume-" + podUid);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void run(String podUid, Set<Long> nsPids, CudaCheckpoint cuda, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        Set<Long> resumed = new HashSet<>();
        while (System.nanoTime() < deadline && resumed.size() < nsPids.size()) {
            for (long pid : matching(Path.of("/proc"), podUid, nsPids)) {
                if (resumed.contains(pid)) continue;
                try {
                    cuda.resume(pid);
                    resumed.add(pid);
                    LOG.info("resumed the CUDA state of restored pid " + pid + " in pod " + podUid);
                } catch (RuntimeException e) {
                    LOG.warn("cannot resume the CUDA state of restored pid " + pid + " in pod " + podUid + ": " + e.getMessage());
                    resumed.add(pid); // once: a second toggle would checkpoint it again
                }
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
        }
        if (resumed.size() < nsPids.size()) {
            LOG.warn("pod " + podUid + ": " + (nsPids.size() - resumed.size()) + " restored GPU process(es) did not appear within "
                    + within.toSeconds() + " s; their CUDA state stays checkpointed");
        }
    }

    /** Host pids under {@code proc} in pod {@code podUid} whose innermost namespace pid is one of {@code nsPids} (pause excluded). */
    public static List<Long> matching(Path proc, String podUid, Set<Long> nsPids) {
        try (Stream<Path> dirs = Files.list(proc)) {
            return dirs.map(d -> d.getFileName().toString()).filter(n -> n.chars().allMatch(Character::isDigit))
                    .map(Long::parseLong)
                    .filter(pid -> podUid.equals(ProcCgroups.of(pid).podUid()))
                    .filter(pid -> !"pause".equals(ProcFs.comm(pid)))
                    .filter(pid -> {
                        List<Long> ns = ProcFs.nsPids(pid);
                        return !ns.isEmpty() && nsPids.contains(ns.get(ns.size() - 1));
                    })
                    .toList();
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}
