package dev.crucible.verifier.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interactive token file as a client finds it (issue 34 point 5; the blind host round's partial): a client polling
 * for the file reads the whole token or nothing, never an empty or cut one, and the file is 0600 with nothing left
 * beside it. A race guard: with the old create-then-write, the poller here saw empty files.
 */
class ApiTokenFileTest {

    @Test
    void aPollingClientReadsTheWholeTokenOrNoFile(@TempDir Path dir) throws Exception {
        List<String> seen = new ArrayList<>();
        AtomicBoolean done = new AtomicBoolean();
        for (int i = 0; i < 300; i++) {
            Path file = dir.resolve("api-token-" + i);
            ApiToken token = ApiToken.generate();
            done.set(false);
            Thread poller = new Thread(() -> {
                while (!done.get()) {
                    try {
                        String s = Files.readString(file);
                        if (!s.equals(token.value() + "\n")) {
                            synchronized (seen) {
                                seen.add(file.getFileName() + ": " + s.length() + " chars");
                            }
                        }
                        return;
                    } catch (NoSuchFileException e) {
                        Thread.onSpinWait();
                    } catch (Exception e) {
                        synchronized (seen) {
                            seen.add(file.getFileName() + ": " + e);
                        }
                        return;
                    }
                }
            });
            poller.start();
            token.writeTo(file);
            poller.join(10_000);
            done.set(true);
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        }
        assertThat(seen).as("reads of a token file that was not whole").isEmpty();
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp")).toList()).isEmpty();
        }
    }
}
