package dev.crucible.snapshot.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GpuProcessesTest {

    @Test
    void detectsLibcudaMappingsAndNvidiaDeviceFds(@TempDir Path tmp) throws Exception {
        Path cuda = Files.createDirectories(tmp.resolve("cuda/fd"));
        Files.writeString(tmp.resolve("cuda/maps"),
                "7f00-7f10 r-xp 00000000 08:01 42 /usr/lib/x86_64-linux-gnu/libcuda.so.570.86.10\n");
        Path dev = Files.createDirectories(tmp.resolve("dev/fd"));
        Files.writeString(tmp.resolve("dev/maps"), "7f00-7f10 r-xp 00000000 08:01 42 /usr/lib/libc.so.6\n");
        Files.createSymbolicLink(dev.resolve("5"), Path.of("/dev/nvidiactl"));
        Path plain = Files.createDirectories(tmp.resolve("plain/fd"));
        Files.writeString(tmp.resolve("plain/maps"), "7f00-7f10 r-xp 00000000 08:01 42 /usr/lib/libc.so.6\n");
        Files.createSymbolicLink(plain.resolve("1"), Path.of("/dev/null"));

        assertThat(GpuProcesses.usesGpu(cuda.getParent())).isTrue();
        assertThat(GpuProcesses.usesGpu(dev.getParent())).isTrue();
        assertThat(GpuProcesses.usesGpu(plain.getParent())).isFalse();
        assertThat(GpuProcesses.detect(List.of(ProcessHandle.current().pid()))).isEmpty();
    }

    @Test
    void usesTheDocumentedCudaCheckpointFlags() {
        CudaCheckpoint tool = new CudaCheckpoint(Path.of("/usr/bin/cuda-checkpoint"), true);
        assertThat(tool.lockCommand(7, 5000)).containsExactly("/usr/bin/cuda-checkpoint", "--action", "lock", "--pid", "7",
                "--timeout", "5000");
        assertThat(tool.actionCommand("checkpoint", 7)).containsExactly("/usr/bin/cuda-checkpoint", "--action", "checkpoint",
                "--pid", "7");
        assertThat(tool.toggleCommand(7)).containsExactly("/usr/bin/cuda-checkpoint", "--toggle", "--pid", "7");
        assertThat(tool.stateCommand(7)).containsExactly("/usr/bin/cuda-checkpoint", "--get-state", "--pid", "7");
    }
}
