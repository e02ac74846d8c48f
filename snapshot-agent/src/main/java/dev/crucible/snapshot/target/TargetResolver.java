package dev.crucible.snapshot.target;

import dev.crucible.snapshot.client.api.TargetSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import dev.crucible.snapshot.store.ContainedPaths;

/** Turns a {@link TargetSpec} into a {@link ResolvedTarget}; cgroup paths never leave the cgroup2 mount. */
public final class TargetResolver {

    private final Path cgroupRoot;
    private final List<Path> v1Roots;

    public TargetResolver(Path cgroupRoot) {
        this(cgroupRoot, List.of());
    }

    /** {@code v1Roots}: the host's cgroup v1 hierarchies, searched for a pod's container when the v2 mount has none. */
    public TargetResolver(Path cgroupRoot, List<Path> v1Roots) {
        this.cgroupRoot = cgroupRoot;
        this.v1Roots = List.copyOf(v1Roots);
    }

    public ResolvedTarget resolve(TargetSpec spec) {
        spec.validate();
        if (spec.pid() != null) {
            List<ProcessRef> tree = ProcessTree.of(spec.pid());
            return new ResolvedTarget(tree.get(0), tree, null, "pid " + spec.pid());
        }
        return spec.cgroupPath() != null ? fromCgroup(cgroupByPath(spec.cgroupPath())) : container(spec);
    }

    private Path cgroupByPath(String relative) {
        requireRoot();
        String rel = relative.startsWith("/") ? relative.substring(1) : relative;
        Path p = ContainedPaths.resolve(cgroupRoot, rel, "target.cgroupPath");
        if (!Files.isRegularFile(p.resolve("cgroup.procs"))) {
            throw new IllegalArgumentException("target.cgroupPath '" + relative + "' is not a cgroup under " + cgroupRoot);
        }
        return p;
    }

    /**
     * A pod's container: its cgroup under the v2 mount, else (a cgroup v1 host, as the real node is) its
     * cgroup in a v1 hierarchy. v1 has no {@code cgroup.freeze}, so such a target carries no cgroup and is
     * frozen by SIGSTOP.
     */
    private ResolvedTarget container(TargetSpec spec) {
        if (cgroupRoot == null && v1Roots.isEmpty()) requireRoot();
        List<String> candidates = ContainerCgroupPaths.candidates(spec.podUid(), spec.containerId());
        Path v2 = cgroupRoot == null ? null : find(cgroupRoot, candidates);
        if (v2 != null) {
            return fromCgroup(v2);
        }
        for (Path root : v1Roots) {
            Path p = find(root, candidates);
            if (p != null) {
                ResolvedTarget t = fromCgroup(p);
                return new ResolvedTarget(t.root(), t.processes(), null, "cgroup v1 " + p + " (frozen by SIGSTOP)");
            }
        }
        throw new IllegalArgumentException("target: no cgroup for pod " + spec.podUid() + " container "
                + spec.containerId() + " under " + (cgroupRoot == null ? "no cgroup2 mount" : cgroupRoot)
                + (v1Roots.isEmpty() ? "" : " nor the cgroup v1 hierarchies " + v1Roots) + " (tried " + candidates.size() + " kubelet layouts)");
    }

    /**
     * The first candidate that is a cgroup under {@code root}, or under a folder at most two levels below
     * it that holds kubelet's {@code kubepods}: kubelet's {@code cgroupRoot} setting puts the pods there
     * (the real-node harness uses {@code /crucible-real-0}, as a node sharing its machine would).
     */
    private static Path find(Path root, List<String> candidates) {
        List<Path> prefixes = new ArrayList<>();
        prefixes.add(root);
        for (Path child : dirs(root)) {
            if (holdsPods(child)) prefixes.add(child);
            for (Path grandchild : dirs(child)) {
                if (holdsPods(grandchild)) prefixes.add(grandchild);
            }
        }
        for (Path prefix : prefixes) {
            for (String c : candidates) {
                Path p = prefix.resolve(c);
                if (Files.isRegularFile(p.resolve("cgroup.procs"))) {
                    return p;
                }
            }
        }
        return null;
    }

    private static boolean holdsPods(Path dir) {
        return Files.isDirectory(dir.resolve("kubepods")) || Files.isDirectory(dir.resolve("kubepods.slice"));
    }

    private static List<Path> dirs(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(d -> Files.isDirectory(d, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                    && !d.getFileName().toString().startsWith("kubepods")).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private void requireRoot() {
        if (cgroupRoot == null) {
            throw new IllegalStateException("no cgroup v2 mount found on this host; target by pid instead");
        }
    }

    /** The processes of a cgroup subtree; they must form one tree, since CRIU dumps one tree. */
    public static ResolvedTarget fromCgroup(Path cgroup) {
        Set<Long> pids = new HashSet<>();
        try (Stream<Path> dirs = Files.walk(cgroup)) {
            for (Path d : (Iterable<Path>) dirs.filter(Files::isDirectory)::iterator) {
                for (String line : Files.readAllLines(d.resolve("cgroup.procs"))) {
                    if (!line.isBlank()) {
                        pids.add(Long.parseLong(line.trim()));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + cgroup, e);
        }
        List<Long> roots = new ArrayList<>();
        for (long pid : pids) {
            try {
                if (!pids.contains(ProcFs.parentPid(pid))) {
                    roots.add(pid);
                }
            } catch (NoSuchProcessException ignored) {
                // exited meanwhile
            }
        }
        if (roots.size() != 1) {
            throw new IllegalArgumentException("cgroup " + cgroup + " holds " + roots.size()
                    + " process trees (roots " + roots + "); a snapshot needs exactly one");
        }
        List<ProcessRef> tree = ProcessTree.of(roots.get(0));
        return new ResolvedTarget(tree.get(0), tree, cgroup, "cgroup " + cgroup);
    }
}
