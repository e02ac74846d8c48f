package dev.crucible.e2e.k3s;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.MountableFile;

/**
 * Imports the OCI archives {@code images/build-all} writes (target/images/) into k3s's containerd,
 * so the cluster never pulls from a registry.
 */
final class Images {

    /** Archives the chart and the example need, under target/images/. */
    private static final List<String> ARCHIVES = List.of("operator.tar", "sidecar-verifier.tar", "example-python-calc.tar");

    private Images() {
    }

    static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("helm/crucible"))) {
            p = p.getParent();
        }
        return p;
    }

    static void buildAndLoadInto(K3sContainer k3s) throws Exception {
        for (String archive : ARCHIVES) {
            Path tar = repoRoot().resolve("target/images").resolve(archive);
            if (!Files.isRegularFile(tar)) {
                throw new IllegalStateException(tar + " missing: run images/build-all first");
            }
            k3s.copyFileToContainer(MountableFile.forHostPath(tar), "/tmp/image.tar");
            var result = k3s.execInContainer("ctr", "-n", "k8s.io", "images", "import", "/tmp/image.tar");
            if (result.getExitCode() != 0) {
                throw new IllegalStateException("importing " + archive + " into k3s failed: " + result.getStderr());
            }
        }
    }
}
