package dev.crucible.snapshot.target;

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

    public TargetResolver(Path cgroupRoot) {
        this.cgroupRoot = cgroupRoot;
    }

    public ResolvedTarget resolve(TargetSpec spec) {
        spec.validate();
        if (spec.pid() != null) {
            List<ProcessRef> tree = ProcessTree.of(spec.pid());
            return new ResolvedTarget(tree.get(0), tree, null, "pid " + spec.pid());
        }
        Path cgroup = spec.cgroupPath() != null ? cgroupByPath(spec.cgroupPath()) : cgroupOfContainer(spec);
        return fromCgroup(cgroup);
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

    private Path cgroupOfContainer(TargetSpec spec) {
        requireRoot();
        List<String> candidates = ContainerCgroupPaths.candidates(spec.podUid(), spec.containerId());
        for (String c : candidates) {
            Path p = cgroupRoot.resolve(c);
            if (Files.isRegularFile(p.resolve("cgroup.procs"))) {
                return p;
            }
        }
        throw new IllegalArgumentException("target: no cgroup for pod " + spec.podUid() + " container "
                + spec.containerId() + " under " + cgroupRoot + " (tried " + candidates.size() + " kubelet layouts)");
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
