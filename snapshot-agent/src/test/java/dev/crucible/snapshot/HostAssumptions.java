package dev.crucible.snapshot;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.snapshot.criu.CriuBinary;
import dev.crucible.snapshot.target.CgroupMounts;
import java.nio.file.Files;
import java.nio.file.Path;

/** Skips (with the reason) tests that need root, real processes, cgroup v2 or CRIU. */
public final class HostAssumptions {

    private HostAssumptions() {
    }

    public static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    public static void assumeProcessTools() {
        assumeTrue(root(), "needs root (freezing, moving processes between cgroups, CRIU)");
        assumeTrue(onPath("gcc") && onPath("unshare") && onPath("setsid"), "needs gcc, unshare and setsid");
    }

    public static void assumeCgroup2() {
        assumeProcessTools();
        assumeTrue(CgroupMounts.cgroup2().isPresent(), "no cgroup v2 mount on this host");
    }

    public static CriuBinary assumeCriu() {
        assumeProcessTools();
        var criu = CriuBinary.find();
        assumeTrue(criu.isPresent(), CriuBinary.MISSING);
        return criu.get();
    }

    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
