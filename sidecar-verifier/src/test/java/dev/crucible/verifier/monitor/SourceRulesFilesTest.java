package dev.crucible.verifier.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The helper's package travels as the files {@link SourceRulesFiles#MODULES} names: a module added to the folder
 * but not to the list would be missing at run time (its import fails, the helper dies, and every file falls back
 * to the text rules), so the list and the folder the build ships must be the same.
 */
class SourceRulesFilesTest {
    @Test
    void everyModuleOfThePackageIsHandedToTheHelper() throws IOException, URISyntaxException {
        Path pkg = Path.of(SourceRulesFiles.class.getResource(SourceRulesFiles.PACKAGE).toURI());
        try (Stream<Path> s = Files.list(pkg)) {
            List<String> shipped = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".py")).toList();
            assertThat(SourceRulesFiles.MODULES).containsExactlyInAnyOrderElementsOf(shipped);
        }
    }

    @Test
    void theCommandLineIsTheBootThenEveryModuleAsPathAndSource() {
        List<String> args = SourceRulesFiles.commandLine();
        assertThat(args.get(0)).isEqualTo("-c");
        assertThat(args.get(1)).contains("sys.meta_path.insert(0, _Sources(");
        assertThat(args.get(args.size() - 1)).isEqualTo("--");
        assertThat(args.subList(2, args.size() - 1)).hasSize(2 * SourceRulesFiles.MODULES.size());
        assertThat(args.get(2)).isEqualTo("source_rules/__init__.py");
    }
}
