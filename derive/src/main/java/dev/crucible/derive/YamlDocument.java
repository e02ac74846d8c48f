package dev.crucible.derive;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * A YAML file read as SnakeYAML nodes rather than plain objects, because nodes keep their line numbers
 * and every error about a workflow must name the line. Scalars are kept as the text that was written
 * ({@code 3.10} stays "3.10"), which is what a person reading the workflow expects to see again.
 */
final class YamlDocument {
    private final String file;
    private final Node root;

    private YamlDocument(String file, Node root) {
        this.file = file;
        this.root = root;
    }

    static YamlDocument parse(String file, String text) throws DerivationException {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        try {
            Node root = new Yaml(new SafeConstructor(options)).compose(new StringReader(text));
            if (root == null) {
                throw new DerivationException(file, null, 1, "the workflow file is empty");
            }
            return new YamlDocument(file, root);
        } catch (MarkedYAMLException e) {
            int line = e.getProblemMark() != null ? e.getProblemMark().getLine() + 1 : 0;
            String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
            String context = e.getContext() != null ? " (" + e.getContext() + ")" : "";
            throw new DerivationException(file, null, line, "YAML does not parse: " + problem + context);
        } catch (YAMLException e) {
            throw new DerivationException(file, null, 0, "YAML does not parse: " + e.getMessage());
        }
    }

    String file() {
        return file;
    }

    Node root() {
        return root;
    }

    static int line(Node node) {
        return node.getStartMark().getLine() + 1;
    }

    /** A mapping's entries in file order; duplicate keys are an error, as they are for GitHub. */
    Map<String, Node> mapping(Node node, String what) throws DerivationException {
        if (!(node instanceof MappingNode m)) {
            throw error(node, what + " must be a mapping");
        }
        Map<String, Node> out = new LinkedHashMap<>();
        for (NodeTuple t : m.getValue()) {
            String key = scalar(t.getKeyNode(), "a key in " + what);
            if (out.put(key, t.getValueNode()) != null) {
                throw error(t.getKeyNode(), "duplicate key '" + key + "' in " + what);
            }
        }
        return out;
    }

    /**
     * The line of each key of a mapping. A job or the {@code jobs:} section is "at" its key's line: the
     * value node of a block mapping starts on the line after.
     */
    static Map<String, Integer> keyLines(Node node) {
        Map<String, Integer> out = new LinkedHashMap<>();
        if (node instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k) {
                    out.putIfAbsent(k.getValue(), line(k));
                }
            }
        }
        return out;
    }

    /** The mapping at {@code key}, empty when absent or null. */
    Map<String, Node> optionalMapping(Map<String, Node> parent, String key, String what)
            throws DerivationException {
        Node n = parent.get(key);
        return n == null || isNull(n) ? new LinkedHashMap<>() : mapping(n, what);
    }

    List<Node> sequence(Node node, String what) throws DerivationException {
        if (!(node instanceof SequenceNode s)) {
            throw error(node, what + " must be a list");
        }
        return s.getValue();
    }

    /** The text of a scalar, or null for a YAML null. */
    String scalar(Node node, String what) throws DerivationException {
        if (node == null || isNull(node)) {
            return null;
        }
        if (!(node instanceof ScalarNode s)) {
            throw error(node, what + " must be a single value, not a " + kind(node));
        }
        return s.getValue();
    }

    String optionalScalar(Map<String, Node> parent, String key, String what) throws DerivationException {
        return scalar(parent.get(key), what);
    }

    /** A mapping of names to scalar values (env:, with:), values as written. */
    Map<String, String> stringMap(Map<String, Node> parent, String key, String what) throws DerivationException {
        Map<String, String> out = new LinkedHashMap<>();
        Node whole = parent.get(key);
        if (key.equals("env") && whole instanceof ScalarNode s && s.getValue().strip().matches("\\$\\{\\{.*}}")) {
            // env: ${{ matrix.env }} (scrapy): a mapping an expression gives, resolved with the matrix (WorkflowDeriver)
            out.put(WHOLE_ENV, s.getValue().strip());
            return out;
        }
        for (Map.Entry<String, Node> e : optionalMapping(parent, key, what).entrySet()) {
            String v = scalar(e.getValue(), what + "." + e.getKey());
            out.put(e.getKey(), v == null ? "" : v);
        }
        return out;
    }

    /** The key under which an env block written as one expression is kept until the matrix is known. */
    static final String WHOLE_ENV = "${{ env block }}";

    /** Plain Java values (String, List, Map) for data that expressions read, such as matrix entries. */
    Object plain(Node node) throws DerivationException {
        if (node == null || isNull(node)) {
            return null;
        }
        if (node instanceof ScalarNode s) {
            return s.getValue();
        }
        if (node instanceof SequenceNode s) {
            List<Object> out = new ArrayList<>();
            for (Node item : s.getValue()) {
                out.add(plain(item));
            }
            return out;
        }
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, Node> e : mapping(node, "a mapping").entrySet()) {
            out.put(e.getKey(), plain(e.getValue()));
        }
        return out;
    }

    static boolean isNull(Node node) {
        return node instanceof ScalarNode && Tag.NULL.equals(node.getTag());
    }

    /** Whether a block scalar's text starts on the line after its key ({@code run: |}). */
    static int firstContentLine(Node node) {
        if (node instanceof ScalarNode s && s.getScalarStyle() != null) {
            char style = s.getScalarStyle().getChar() == null ? ' ' : s.getScalarStyle().getChar();
            if (style == '|' || style == '>') {
                return line(node) + 1;
            }
        }
        return line(node);
    }

    private static String kind(Node node) {
        return node instanceof MappingNode ? "mapping" : node instanceof SequenceNode ? "list" : "value";
    }

    DerivationException error(Node node, String problem) {
        return new DerivationException(file, null, node == null ? 0 : line(node), problem);
    }
}
