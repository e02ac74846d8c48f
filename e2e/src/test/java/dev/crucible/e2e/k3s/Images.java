package dev.crucible.e2e.k3s;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.k3s.K3sContainer;
import org.testcontainers.utility.MountableFile;

/**
 * Builds the images the chart and the example need from the repository's Dockerfiles and imports
 * them into k3s's containerd, so the cluster never pulls from a registry.
 */
final class Images {

    /** Image name → (Dockerfile, build context) relative to the repository root. */
    private static final Map<String, String[]> IMAGES = Map.of(
            "ghcr.io/crucible-dev/crucible-operator:0.1.0", new String[] {"operator/src/main/docker/Dockerfile.jvm", "operator"},
            "ghcr.io/crucible-dev/crucible-verifier:0.1.0", new String[] {"sidecar-verifier/src/main/docker/Dockerfile", "sidecar-verifier"},
            "ghcr.io/crucible-dev/examples/python-calc:3.11", new String[] {"examples/python-bugfix/image/Dockerfile", "examples/python-bugfix"});

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
        for (Map.Entry<String, String[]> e : IMAGES.entrySet()) {
            Path dockerfile = repoRoot().resolve(e.getValue()[0]);
            Path context = repoRoot().resolve(e.getValue()[1]);
            new ImageFromDockerfile(e.getKey(), false)
                    .withFileFromPath(".", context)
                    .withDockerfile(dockerfile)
                    .get();
            Path tar = Files.createTempFile("image", ".tar");
            new ProcessBuilder("docker", "save", "-o", tar.toString(), e.getKey()).inheritIO().start().waitFor();
            k3s.copyFileToContainer(MountableFile.forHostPath(tar), "/tmp/image.tar");
            var result = k3s.execInContainer("ctr", "-n", "k8s.io", "images", "import", "/tmp/image.tar");
            if (result.getExitCode() != 0) {
                throw new IllegalStateException("importing " + e.getKey() + " into k3s failed: " + result.getStderr());
            }
        }
    }
}
