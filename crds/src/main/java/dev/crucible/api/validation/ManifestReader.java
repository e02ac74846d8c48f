package dev.crucible.api.validation;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads multi-document YAML from files and folders as kubectl does (YAML 1.1 as go-yaml v2 reads it:
 * anchors, aliases and merge keys within a document, empty values as null, empty documents skipped).
 * Duplicate keys are errors. Every limit is enforced before or while parsing, never after: the file's
 * size before reading (and again while reading), each document's size, nesting and aliases while the
 * parser streams, the number of documents as they come. Nothing here throws on bad input.
 */
public final class ManifestReader {

    /** Bytes in one manifest file. */
    public static final int MAX_FILE_BYTES = 16 << 20;
    /** Characters in one document: etcd (and so the API server) stores at most 1.5 MiB per object. */
    public static final int MAX_DOCUMENT_CHARS = 1536 << 10;
    public static final int MAX_DOCUMENTS = 10_000;
    public static final int MAX_COLLECTION_ALIASES = 100;
    public static final int MAX_DEPTH = 100;
    /** Values in one document after aliases are expanded (a small document can expand a lot). */
    public static final int MAX_VALUES = 100_000;

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
            errors.add(fileError(path.toString(), Files.exists(path) ? "not a regular file or folder" : "no such file or directory"));
            return List.of();
        }
        IgnoreFile ignore = IgnoreFile.in(path);
        try (Stream<Path> walk = Files.walk(path)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
                    .filter(p -> !ignore.ignores(path.relativize(p)))
                    .sorted()
                    .toList();
        } catch (IOException | RuntimeException e) {
            errors.add(fileError(path.toString(), "cannot list: " + e.getMessage()));
            return List.of();
        }
    }

    private static void readFile(Path file, List<Manifest> manifests, List<ValidationError> errors) {
        String name = file.toString();
        byte[] bytes;
        try {
            long size = Files.size(file);
            if (size > MAX_FILE_BYTES) {
                errors.add(fileError(name, tooLarge(size)));
                return;
            }
            try (InputStream in = Files.newInputStream(file)) {
                bytes = in.readNBytes(MAX_FILE_BYTES + 1); // the file may have grown since
            }
        } catch (IOException e) {
            errors.add(fileError(name, "cannot read: " + e.getMessage()));
            return;
        }
        if (bytes.length > MAX_FILE_BYTES) {
            errors.add(fileError(name, tooLarge(bytes.length)));
            return;
        }
        String text = decode(name, bytes, errors);
        if (text != null) {
            parse(name, text, manifests, errors);
        }
    }

    private static String tooLarge(long size) {
        return "file is " + size + " bytes, over the limit of " + MAX_FILE_BYTES + " bytes (16 MiB) per manifest file";
    }

    /** Strict UTF-8 (as kubectl reads YAML); a NUL or a broken sequence means the file is not text. */
    private static String decode(String name, byte[] bytes, List<ValidationError> errors) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == 0) {
                errors.add(fileError(name, "not a text file (NUL byte at byte " + i + ")"));
                return null;
            }
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult result = decoder.decode(in, out, true);
        if (!result.isError()) {
            result = decoder.flush(out);
        }
        if (result.isError()) {
            errors.add(fileError(name, "not a text file (invalid UTF-8 at byte " + in.position() + ")"));
            return null;
        }
        out.flip();
        String text = out.toString();
        return text.startsWith("\uFEFF") ? text.substring(1) : text;
    }

    private static void parse(String file, String text, List<Manifest> manifests, List<ValidationError> errors) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setMaxAliasesForCollections(MAX_COLLECTION_ALIASES); // "billion laughs"
        options.setNestingDepthLimit(MAX_DEPTH);
        options.setCodePointLimit(MAX_DOCUMENT_CHARS); // counted per document, while scanning
        options.setAllowRecursiveKeys(false);
        Iterator<Node> documents = new Yaml(options).composeAll(new StringReader(text)).iterator();
        int document = 0;
        int found = 0;
        int lastLine = 1;
        int errorsBefore = errors.size();
        while (true) {
            Node root;
            try {
                if (!documents.hasNext()) {
                    break;
                }
                root = documents.next();
            } catch (MarkedYAMLException e) {
                errors.add(syntaxError(file, e));
                return; // the parser cannot resynchronise after a syntax error
            } catch (YAMLException | StackOverflowError e) {
                errors.add(new ValidationError(file, document + 1, null, null, "(document)", limitMessage(e), lastLine));
                return;
            }
            document++;
            if (document > MAX_DOCUMENTS) {
                errors.add(new ValidationError(file, document, null, null, ValidationError.FILE,
                        "more than " + MAX_DOCUMENTS + " documents in one file (limit)", YamlTree.line(root)));
                return;
            }
            lastLine = Math.max(lastLine, root.getEndMark() == null ? lastLine : root.getEndMark().getLine() + 1);
            if (root instanceof ScalarNode s && s.getTag().equals(Tag.NULL)) {
                continue; // an empty document (a trailing ---, a template that rendered nothing) is no object
            }
            try {
                YamlTree.Converted json = YamlTree.convert(root, MAX_VALUES);
                manifests.add(new Manifest(file, document, json.json(), YamlTree.line(root), json.lines()));
                found++;
            } catch (YamlTree.YamlError e) {
                errors.add(new ValidationError(file, document, null, null, e.path, e.getMessage(), e.line));
            }
        }
        if (found == 0 && errors.size() == errorsBefore) {
            errors.add(fileError(file, document == 0
                    ? "no YAML documents (the file is empty or holds only comments)"
                    : "only empty documents (nothing between the --- markers)"));
        }
    }

    private static ValidationError syntaxError(String file, MarkedYAMLException e) {
        Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
        int line = mark == null ? 0 : mark.getLine() + 1;
        String problem = e.getProblem() == null ? e.getMessage() : e.getProblem();
        String message;
        if (problem.startsWith("found undefined alias")) {
            message = "alias *" + problem.substring("found undefined alias".length()).strip()
                    + " has no anchor (&) before it in this document; anchors do not reach across ---";
        } else if (problem.startsWith("found duplicate anchor")) {
            message = problem;
        } else {
            String context = e.getContext() == null ? "" : e.getContext() + ": ";
            message = "cannot parse YAML: " + context + problem;
        }
        if (problem.contains("exceeds the limit") || problem.contains("Nesting Depth") || problem.contains("aliases")) {
            message = limitMessage(e);
        }
        return new ValidationError(file, 0, null, null, "(document)", message, line);
    }

    private static String limitMessage(Throwable e) {
        String m = e instanceof StackOverflowError || e.getMessage() == null ? "nested too deeply" : e.getMessage();
        if (m.contains("exceeds the limit")) {
            return "document is longer than the limit of " + MAX_DOCUMENT_CHARS
                    + " characters (1.5 MiB, the most etcd stores for one object)";
        }
        if (m.contains("Nesting Depth") || e instanceof StackOverflowError) {
            return "nested deeper than the limit of " + MAX_DEPTH + " levels";
        }
        if (m.contains("aliases")) {
            return "more than the limit of " + MAX_COLLECTION_ALIASES + " aliases to mappings or lists in one document";
        }
        return "cannot parse YAML: " + m;
    }

    private static ValidationError fileError(String file, String message) {
        return new ValidationError(file, 0, null, null, ValidationError.FILE, message, 0);
    }
}
