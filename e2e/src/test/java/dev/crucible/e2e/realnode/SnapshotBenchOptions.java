package dev.crucible.e2e.realnode;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** Paths come from the script (lib.sh knows them): state dir, node binaries, repository root. */
record SnapshotBenchOptions(List<Long> sizes, String namespace, Path state, Path nodeBin, Path repo, Path store) {
    /** The node's files: up may keep them outside the state directory and link node/ there. */
    Path run() {
        try {
            return state.resolve("node").toRealPath();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static SnapshotBenchOptions parse(String[] args) {
        List<Long> sizes = List.of(256L, 1024L);
        String ns = "crucible-snapshot-bench";
        Path state = null, nodeBin = null, repo = Path.of("").toAbsolutePath(), store = null;
        for (int i = 0; i < args.length; i++) {
            String v = i + 1 < args.length ? args[i + 1] : null;
            switch (args[i]) {
                case "--sizes" -> sizes = Arrays.stream(v.split(",")).map(String::strip).map(Long::parseLong).toList();
                case "--namespace" -> ns = v;
                case "--state" -> state = Path.of(v);
                case "--node-bin" -> nodeBin = Path.of(v);
                case "--repo" -> repo = Path.of(v);
                case "--store" -> store = Path.of(v);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--sizes 256,1024 --namespace NS --state DIR --node-bin DIR --repo DIR --store DIR)");
            }
            i++;
        }
        if (state == null || nodeBin == null || store == null) {
            throw new IllegalArgumentException("--state, --node-bin and --store are required (e2e/real-node/snapshot-bench passes them)");
        }
        return new SnapshotBenchOptions(sizes, ns, state, nodeBin, repo, store);
    }
}
