package dev.crucible.snapshot.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.crucible.snapshot.HostAssumptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 6 point 6: a CUDA process holding device memory goes through cuda-checkpoint + CRIU and
 * comes back intact. Runs gpu/run-gpu-check.sh (which also works standalone on a GPU machine);
 * skips where there is no GPU or no cuda-checkpoint.
 */
class GpuSnapshotTest {

    @Test
    void cudaProcessIsCheckpointedDumpedAndRestored() throws Exception {
        assumeTrue(CudaCheckpoint.gpuPresent() && CudaCheckpoint.find().isPresent(), CudaCheckpoint.MISSING);
        HostAssumptions.assumeCriu();
        Path script = Path.of(System.getProperty("crucible.repo.root", "..")).resolve("snapshot-agent/gpu/run-gpu-check.sh");
        assertThat(script).exists();
        Process p = new ProcessBuilder("bash", script.toString(), "256").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
        System.out.println(out);
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("gpu_check OK");
        Files.writeString(Path.of("target", "gpu-check.txt"), out);
    }
}
