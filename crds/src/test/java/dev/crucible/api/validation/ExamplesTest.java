package dev.crucible.api.validation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.crucible.api.compat.RepoPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** Every example validates; every file in examples/invalid is refused with an error naming its expected path. */
class ExamplesTest {

    private static final Pattern EXPECT = Pattern.compile("^# expect: (\\S+)", Pattern.MULTILINE);
    private static final ManifestValidator VALIDATOR = new ManifestValidator();

    @Test
    void allExamplesAreValid() throws IOException {
        Path examples = RepoPaths.root().resolve("examples");
        List<Path> valid;
        try (Stream<Path> files = Files.walk(examples)) {
            valid = files.filter(p -> p.toString().endsWith(".yaml"))
                    .filter(p -> !p.startsWith(examples.resolve("invalid")))
                    .filter(p -> !p.toString().contains("/workspace/"))
                    .sorted().toList();
        }
        assertThat(valid).as("example manifests").hasSizeGreaterThanOrEqualTo(7);
        List<ValidationError> errors = VALIDATOR.validatePaths(valid);
        assertThat(errors).as("errors in valid examples").isEmpty();
        String kinds = String.join(",", new ManifestReader().read(valid).manifests().stream().map(Manifest::kind).toList());
        assertThat(kinds).contains("RLEnvironment", "Rollout", "RolloutSnapshot", "ProbeModel");
    }

    @TestFactory
    Stream<DynamicTest> everyInvalidExampleIsRejectedAtItsPath() throws IOException {
        Path dir = RepoPaths.root().resolve("examples/invalid");
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files).hasSizeGreaterThanOrEqualTo(15);
        return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> {
            Matcher m = EXPECT.matcher(Files.readString(file));
            assertThat(m.find()).as(file + " starts with '# expect: <path>'").isTrue();
            String expected = m.group(1);
            List<ValidationError> errors = VALIDATOR.validatePaths(List.of(file));
            assertThat(errors).as(file + " must be rejected").isNotEmpty();
            assertThat(errors).extracting(ValidationError::path).as("paths reported for " + file).contains(expected);
            assertThat(errors).allSatisfy(e -> assertThat(e.toString()).startsWith(file + ":"));
        }));
    }
}
