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
import org.junit.jupiter.api.TestFactory;

/**
 * The CLI's side of the parity cases in src/test/resources/parity (the e2e parity tier sends the same
 * files to a real API server): every valid case is accepted; every invalid case is refused, with an
 * error at its {@code # expect:} path when it names one, each error one line starting with the file.
 */
class ParityCasesTest {

    private static final Pattern EXPECT = Pattern.compile("^# expect: (\\S+)", Pattern.MULTILINE);
    private static final ManifestValidator VALIDATOR = new ManifestValidator();

    static List<Path> cases(String kind) throws IOException {
        try (Stream<Path> s = Files.list(RepoPaths.root().resolve("crds/src/test/resources/parity").resolve(kind))) {
            return s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    @TestFactory
    Stream<DynamicTest> validCasesAreAccepted() throws IOException {
        List<Path> files = cases("valid");
        assertThat(files).hasSizeGreaterThanOrEqualTo(20);
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () ->
                assertThat(VALIDATOR.validatePaths(List.of(f))).as(f.toString()).isEmpty()));
    }

    @TestFactory
    Stream<DynamicTest> invalidCasesAreRefusedAtTheirPathOnOneLine() throws IOException {
        List<Path> files = cases("invalid");
        assertThat(files).hasSizeGreaterThanOrEqualTo(60);
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
            List<ValidationError> errors = VALIDATOR.validatePaths(List.of(f));
            assertThat(errors).as(f + " must be refused").isNotEmpty();
            String text = new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1);
            Matcher m = EXPECT.matcher(text);
            if (m.find()) {
                assertThat(errors).extracting(ValidationError::path).as("paths for " + f).contains(m.group(1));
            }
            for (ValidationError e : errors) {
                assertThat(e.toString()).startsWith(f + ":").doesNotContain("\n").doesNotContain("\r");
                assertThat(e.line() > 0 || e.path().equals(ValidationError.FILE)).as("line of " + e).isTrue();
            }
        }));
    }
}
