package dev.crucible.e2e.realnode;

import static dev.crucible.e2e.realnode.SnapshotBenchSupport.await;
import static dev.crucible.e2e.realnode.SnapshotBenchSupport.log;
import static dev.crucible.e2e.realnode.SnapshotBenchSupport.oneLine;

import dev.crucible.snapshot.client.store.Manifest;
import dev.crucible.snapshot.store.ImageStore;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The bench's cluster and node side: its namespace, its pods and their count files, the node's containerd images, the store. */
final class SnapshotBenchCluster {
    private final SnapshotBenchOptions o;
    private final KubernetesClient client;
    /** Each pod's count file on the node, known from the pod's uid when it is created. */
    private final Map<String, Path> countFiles = new ConcurrentHashMap<>();

    SnapshotBenchCluster(SnapshotBenchOptions o, KubernetesClient client) {
        this.o = o;
        this.client = client;
    }

    void freshNamespace() {
        deleteNamespace();
        client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(o.namespace()).endMetadata().build()).create();
    }

    private void deleteNamespace() {
        if (client.namespaces().withName(o.namespace()).get() != null) {
            client.namespaces().withName(o.namespace()).withGracePeriod(0).delete();
            await(Duration.ofMinutes(3), () -> client.namespaces().withName(o.namespace()).get() == null, "namespace " + o.namespace() + " deleted");
        }
    }

    /** Pods gone first (an image in use is not removed), then the imported images; the store per size. */
    void cleanUp(List<Manifest> imported) {
        try {
            deleteNamespace();
        } catch (RuntimeException e) {
            log("cleanup: " + oneLine(e));
        }
        for (String digest : imported.stream().map(m -> m.checkpointDigest).distinct().toList()) {
            List<String> refs = refsTo(digest);
            if (!refs.isEmpty()) {
                List<String> rm = new ArrayList<>(List.of("images", "rm"));
                rm.addAll(refs);
                ctr(rm.toArray(String[]::new));
            }
        }
        deleteStore(o.store());
    }

    /**
     * Every image name pointing at a checkpoint's image index: the name it was imported under, and the
     * one the CRI adds when a container uses it (its ID, {@code sha256:<config digest>}), which would
     * otherwise keep the GiB-sized layer in containerd's content store.
     */
    private List<String> refsTo(String indexDigest) {
        List<String> refs = new ArrayList<>();
        for (String line : ctr("images", "ls").split("\n")) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length > 2 && cols[2].equals(indexDigest)) {
                refs.add(cols[0]);
            }
        }
        return refs;
    }

    static void deleteStore(Path store) {
        if (Files.exists(store)) {
            ImageStore.deleteTree(store);
        }
    }

    /** Runs ctr on the node's containerd (k8s.io namespace); returns its stdout, "" after a failure (logged). */
    private String ctr(String... args) {
        List<String> cmd = new ArrayList<>(List.of(o.nodeBin().resolve("ctr").toString(), "-a", o.run().resolve("containerd.sock").toString(), "-n", "k8s.io"));
        cmd.addAll(List.of(args));
        try {
            // stderr apart: containerd's deprecation warnings are not part of the listing
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (p.waitFor() != 0) {
                log("cleanup: ctr " + String.join(" ", args) + " exit " + p.exitValue());
                return "";
            }
            return out;
        } catch (Exception e) {
            log("cleanup: ctr " + String.join(" ", args) + ": " + oneLine(e));
            return "";
        }
    }

    Pod create(Pod p) {
        Pod created = client.pods().inNamespace(o.namespace()).resource(p).create();
        countFiles.put(created.getMetadata().getName(), emptyDir(created).resolve("count"));
        return created;
    }

    /** Root, as the checkpoint needs here: this machine's bounding set lacks CAP_SYS_RESOURCE, and CRIU restores rlimits. */
    static Pod pod(String name, String image, List<String> command, int member) {
        return new PodBuilder().withNewMetadata().withName(name).addToLabels("app", "snapshot-bench")
                .addToLabels("member", Integer.toString(member)).endMetadata()
                .withNewSpec().withRestartPolicy("Never").withTerminationGracePeriodSeconds(0L)
                .addNewContainer().withName("agent").withImage(image).withImagePullPolicy("Never").withCommand(command)
                .withNewSecurityContext().withRunAsUser(0L).endSecurityContext()
                .addNewVolumeMount().withName("data").withMountPath("/data").endVolumeMount().endContainer()
                .addNewVolume().withName("data").withNewEmptyDir().endEmptyDir().endVolume()
                .endSpec().build();
    }

    Path emptyDir(Pod p) {
        return o.run().resolve("kubelet/pods").resolve(p.getMetadata().getUid()).resolve("volumes/kubernetes.io~empty-dir/data");
    }

    /** The pod's count, read from its emptyDir on the node; 0 before it wrote one (or mid-write). */
    long count(String pod) {
        try {
            return Long.parseLong(Files.readString(countFiles.get(pod)).strip());
        } catch (Exception e) {
            return 0;
        }
    }

    String nodeIp() {
        return client.nodes().list().getItems().get(0).getStatus().getAddresses().stream()
                .filter(a -> "InternalIP".equals(a.getType())).findFirst().orElseThrow().getAddress();
    }

    /** The example images' tag: the chart's appVersion, as up imports them. */
    static String appVersion(Path repo) throws Exception {
        return Files.readAllLines(repo.resolve("helm/crucible/Chart.yaml")).stream()
                .filter(l -> l.startsWith("appVersion:")).findFirst().orElseThrow()
                .replaceAll("^appVersion: *\"?([^\"# ]*).*$", "$1");
    }
}
