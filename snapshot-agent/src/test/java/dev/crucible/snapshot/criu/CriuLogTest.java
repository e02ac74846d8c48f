package dev.crucible.snapshot.criu;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CriuLogTest {

    @Test
    void extractsErrorsSkipsKnownNoiseAndDuplicates() {
        List<String> lines = List.of(
                "(00.000123) Version: 4.1.1 (gitid 0)",
                "(00.000200) Error (criu/util.c:1234): Can't setup RLIMIT_NOFILE for self: Operation not permitted",
                "(00.004021) Error (criu/cr-restore.c:1480): Can't fork for 7: File exists",
                "(00.004021) Error (criu/cr-restore.c:1480): Can't fork for 7: File exists",
                "(00.004100) 1: Error (criu/files-reg.c:2130): File home/x has bad size 10 (expect 4)",
                "(00.005000) Warn  (criu/kerndat.c:1): something");
        assertThat(CriuLog.errors(lines)).containsExactly(
                "Can't fork for 7: File exists [criu/cr-restore.c:1480]",
                "File home/x has bad size 10 (expect 4) [criu/files-reg.c:2130]");
    }

    @Test
    void missingLogGivesNoErrors() {
        assertThat(CriuLog.errors(Path.of("/nonexistent/criu.log"))).isEmpty();
    }
}
