package dev.crucible.e2e.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where the Kubernetes binaries are: {@code $CRUCIBLE_K8S_DIR}, else the newest
 * {@code ~/.cache/crucible/k8s/<version>-linux-amd64/} that e2e/scripts/install-kube-binaries.sh built.
 */
public record KubeBinaries(Path dir, String version) {

    public static final String MISSING = "kube-apiserver not found: run e2e/scripts/install-kube-binaries.sh";
    private static final String SUFFIX = "-linux-amd64";

    /** The binaries, or null when they are missing (callers skip with {@link #MISSING}). */
    public static KubeBinaries find() {
        String env = System.getenv("CRUCIBLE_K8S_DIR");
        if (env != null && !env.isBlank()) {
            return of(Path.of(env));
        }
        Path root = Path.of(System.getProperty("user.home"), ".cache", "crucible", "k8s");
        if (!Files.isDirectory(root)) {
            return null;
        }
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(d -> d.getFileName().toString().endsWith(SUFFIX))
                    .filter(d -> Files.isExecutable(d.resolve("kube-apiserver")))
                    .max(Comparator.comparing(d -> d.getFileName().toString()))
                    .map(KubeBinaries::of).orElse(null);
        } catch (IOException e) {
            return null;
        }
    }

    private static KubeBinaries of(Path dir) {
        String name = dir.getFileName().toString();
        if (!name.endsWith(SUFFIX) || !Files.isExecutable(dir.resolve("kube-apiserver"))
                || !Files.isExecutable(dir.resolve("etcd")) || !Files.isExecutable(dir.resolve("kubectl"))) {
            return null;
        }
        return new KubeBinaries(dir, name.substring(0, name.length() - SUFFIX.length()));
    }

    public Path binary(String name) {
        return dir.resolve(name);
    }

    public boolean has(String name) {
        return Files.isExecutable(binary(name));
    }
}
