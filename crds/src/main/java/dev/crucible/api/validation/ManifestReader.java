package dev.crucible.api.validation;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads multi-document YAML from files and folders. Duplicate keys are errors (as the API server's
 * strict decoding makes them), and a document that does not parse becomes an error, not an exception.
 */
public final class ManifestReader {

    private static final ObjectMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .loaderOptions(loaderOptions()).build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    /** What reading produced: the documents, and errors for what could not be read. */
    public record Result(List<Manifest> manifests, List<ValidationError> errors) {
    }

    public Result read(List<Path> paths) {
        List<Manifest> manifests = new ArrayList<>();
        List<ValidationError> errors = new ArrayList<>();
        for (Path path : paths) {
            for (Path file : expand(path, errors)) {
                readFile(file, manifests, errors);
            }
        }
        return new Result(manifests, errors);
    }

    /** Parses YAML text that came from somewhere other than a file (tests, the webhook). */
    public Result readString(String name, String yaml) {
        List<Manifest> manifests = new ArrayList<>();
        List<ValidationError> errors = new ArrayList<>();
        parse(name, yaml, manifests, errors);
        return new Result(manifests, errors);
    }

    private static List<Path> expand(Path path, List<ValidationError> errors) {
        if (Files.isRegularFile(path)) {
            return List.of(path);
        }
        if (!Files.isDirectory(path)) {
            errors.add(new ValidationError(path.toString(), 0, null, null, "(file)", "no such file or directory"));
            return List.of();
        }
        IgnoreFile ignore = IgnoreFile.in(path);
        try (Stream<Path> walk = Files.walk(path)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
                    .filter(p -> !ignore.ignores(path.relativize(p)))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            errors.add(new ValidationError(path.toString(), 0, null, null, "(file)", "cannot list: " + e.getMessage()));
            return List.of();
        }
    }

    private static void readFile(Path file, List<Manifest> manifests, List<ValidationError> errors) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            errors.add(new ValidationError(file.toString(), 0, null, null, "(file)", "cannot read: " + e.getMessage()));
            return;
        }
        parse(file.toString(), text, manifests, errors);
    }

    private static void parse(String file, String text, List<Manifest> manifests, List<ValidationError> errors) {
        int document = 0;
        // A parser we create is not yet on its first token, so a top-level list stays one document
        // (readValues(String) would unwrap it into several).
        try (JsonParser parser = YAML.createParser(text);
             MappingIterator<JsonNode> docs = YAML.readerFor(JsonNode.class).readValues(parser)) {
            while (true) {
                document++;
                JsonNode body;
                try {
                    if (!docs.hasNextValue()) {
                        break;
                    }
                    body = docs.nextValue();
                } catch (RuntimeException | IOException e) {
                    errors.add(new ValidationError(file, document, null, null, pathOf(e), "cannot parse YAML: " + reason(e)));
                    return; // the parser cannot resynchronise after a syntax error
                }
                if (body == null || body.isNull() || body.isMissingNode()) {
                    document--; // an empty document (a trailing ---) is not a document
                    continue;
                }
                manifests.add(new Manifest(file, document, body));
            }
        } catch (IOException | RuntimeException e) {
            errors.add(new ValidationError(file, Math.max(document, 1), null, null, pathOf(e), "cannot parse YAML: " + reason(e)));
        }
    }

    /** The field path the parser was in when it failed, so even a duplicate key names its field. */
    private static String pathOf(Exception e) {
        Throwable t = e;
        while (t != null && !(t instanceof JsonProcessingException)) {
            t = t.getCause();
        }
        if (t instanceof JsonProcessingException jpe && jpe.getProcessor() instanceof JsonParser parser) {
            String pointer = parser.getParsingContext().pathAsPointer().toString();
            String path = FieldPaths.fromPointer(pointer);
            if (!path.isEmpty()) {
                return path;
            }
        }
        return "(document)";
    }

    private static String reason(Exception e) {
        String msg = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int cut = msg.indexOf("\n at [Source");
        msg = cut > 0 ? msg.substring(0, cut) : msg;
        return msg.replace('\n', ' ').strip();
    }

    private static org.yaml.snakeyaml.LoaderOptions loaderOptions() {
        org.yaml.snakeyaml.LoaderOptions options = new org.yaml.snakeyaml.LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(50); // refuse "billion laughs" alias bombs
        options.setNestingDepthLimit(100);
        options.setCodePointLimit(16 * 1024 * 1024);
        return options;
    }
}
