package dev.crucible.snapshot.container;

import dev.crucible.snapshot.client.api.RuntimeCheckpoint;
import java.nio.file.Path;
import java.time.Duration;

/** The usual node: the kubelet checkpoints (through containerd's CRI), containerd imports. */
public final class KubeletContainerd implements ContainerRuntime, AutoCloseable {
    private final KubeletCheckpoints kubelet;
    private final CtrImages images;

    public KubeletContainerd(KubeletCheckpoints kubelet, CtrImages images) {
        this.kubelet = kubelet;
        this.images = images;
    }

    @Override
    public Path checkpoint(RuntimeCheckpoint c, Duration timeout) {
        return kubelet.checkpoint(c.namespace(), c.pod(), c.container(), timeout);
    }

    @Override
    public void importImage(CheckpointImage image, Duration timeout) {
        if (image.indexDigest() != null && image.indexDigest().equals(images.digestOf(image.reference(), timeout))) {
            return; // already imported (an earlier branch of the same snapshot on this node)
        }
        images.importLayout(image.layout(), image.reference(), timeout);
    }

    @Override
    public void removeImage(String reference, Duration timeout) {
        images.removeAllNamesOf(reference, timeout);
    }

    @Override
    public void close() {
        kubelet.close();
    }
}
