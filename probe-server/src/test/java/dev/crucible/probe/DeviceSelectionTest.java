package dev.crucible.probe;

import static org.assertj.core.api.Assertions.assertThat;

import ai.onnxruntime.OrtException;
import dev.crucible.probe.model.Device;
import dev.crucible.probe.model.ReferenceModel;
import dev.crucible.probe.model.ReferenceSpec;
import org.junit.jupiter.api.Test;

/** auto falls back to CPU when CUDA is missing; cuda either runs on CUDA or fails saying how to get it. */
class DeviceSelectionTest {

    @Test
    void autoPicksCudaOrFallsBackToCpu() throws Exception {
        try (ReferenceModel m = new ReferenceModel(ReferenceSpec.read(TinyModel.dir()), Device.AUTO, 1)) {
            assertThat(m.device()).isIn("cpu", "cuda");
            assertThat(m.forward(java.util.List.of(new long[] {1, 2, 3}), 1).get(1)[0]).hasNumberOfRows(3);
        }
    }

    @Test
    void cudaRunsOnCudaOrFailsWithAClearMessage() throws Exception {
        try (ReferenceModel m = new ReferenceModel(ReferenceSpec.read(TinyModel.dir()), Device.CUDA, 1)) {
            assertThat(m.device()).isEqualTo("cuda");   // only with -Pcuda on a GPU host
        } catch (OrtException e) {
            assertThat(e.getMessage()).contains("device cuda requested").contains("-Pcuda");
        }
    }
}
