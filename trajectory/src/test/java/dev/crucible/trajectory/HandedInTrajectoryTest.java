package dev.crucible.trajectory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A handed-in trajectory is refused whole, naming the file and field, and nothing of it is stored. */
class HandedInTrajectoryTest {
    private static final String OK_STEP = "{\"step_id\":1,\"source\":\"agent\",\"message\":\"hi\"}";

    @Test
    void aMalformedDocumentIsRefusedWholeWithTheFieldNamed(@TempDir Path dir) throws Exception {
        Path t = dir.resolve("t");
        try (TrajectoryRecorder r = TrajectoryRecorder.open(t, RecorderLimits.defaults())) {
            r.append(EventKind.OUTPUT, null, null, Map.of("text", "before"));
            refused(r, dir, "{\"schema_version\":\"ATIF-v1.8\",\"agent\":{\"name\":\"f\"},\"steps\":[" + OK_STEP
                    + ",{\"step_id\":2,\"source\":\"robot\",\"message\":\"x\"}]}", "steps[1].source: required, one of system, user, agent");
            refused(r, dir, "{\"schema_version\":\"ATIF-v1.8\",\"agent\":{\"name\":\"f\"},\"steps\":[{\"step_id\":1,\"source\":\"agent\","
                    + "\"message\":\"x\",\"tool_calls\":[{\"tool_call_id\":\"a\"}]}]}", "steps[0].tool_calls[0]: tool_call_id and function_name");
            refused(r, dir, "{\"schema_version\":\"ATIF-v1.8\",\"agent\":{\"name\":\"f\"},\"steps\":[{\"step_id\":1,\"source\":\"agent\","
                    + "\"message\":\"x\",\"secret\":1}]}", "steps[0].secret: not an ATIF step field");
            refused(r, dir, "{\"agent\":{\"name\":\"f\"},\"steps\":[]}", "schema_version: required");
            refused(r, dir, "{\"schema_version\":\"ATIF-v1.8\",\"agent\":{\"name\":\"f\"},\"steps\":[" + OK_STEP + ",", "not JSON");
            Path link = dir.resolve("link.json");
            Files.createSymbolicLink(link, Path.of("/etc/passwd"));
            assertThatThrownBy(() -> HandedInTrajectory.merge(link, r)).hasMessageContaining("not a regular file");
        }
        List<TraceEvent> events = new ArrayList<>();
        TrajectoryReader.read(t, events::add, p -> { });
        assertThat(events).extracting(TraceEvent::kind).containsExactly(EventKind.OUTPUT, EventKind.END); // nothing half merged
    }

    private static void refused(TrajectoryRecorder r, Path dir, String doc, String message) throws Exception {
        Path f = dir.resolve(HandedInTrajectory.FILE);
        Files.writeString(f, doc);
        assertThatThrownBy(() -> HandedInTrajectory.merge(f, r)).isInstanceOf(HandedInTrajectory.Refused.class)
                .hasMessageContaining(HandedInTrajectory.FILE).hasMessageContaining(message);
    }
}
