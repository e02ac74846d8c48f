package dev.crucible.cli.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Issue 34 point 4: {@code crucible restore} would bring a rollout's agent back outside its box (the snapshot-able
 * sandbox has no user namespace and keeps the CLI user's capabilities), as {@code crucible run --snapshot-every}
 * would have started it; both are refused before anything happens, naming why and the alternative. Before, restore
 * went on to the store and, with CRIU, restored the agent as the CLI's user.
 */
@Tag("attacks")
class RestoreRefusalTest {
    @Test
    void aBranchIsNotRestoredAndTheRefusalNamesWhyAndTheAlternative(@TempDir Path tmp) {
        Path store = tmp.resolve("store");
        Path out = tmp.resolve("branch");
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new RestoreCommand());
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute("snap-1", "--out", out.toString(), "--store", store.toString());
        assertThat(exit).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).contains("refused before anything was restored").contains("outside its box")
                .contains("sealing key").contains("workspace-only");
        assertThat(out).as("nothing made for the branch").doesNotExist();
        assertThat(store).as("the store was not touched").doesNotExist();
    }
}
