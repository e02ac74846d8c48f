package dev.crucible.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Turns one composed YAML document into the JSON kubectl sends: aliases expanded, merge keys
 * ({@code <<}) applied, plain scalars resolved as sigs.k8s.io/yaml (go-yaml v2) resolves them
 * ({@code yes}/{@code on} are booleans, {@code 0755} is octal, timestamps and {@code 1:30} stay
 * strings, an integral float is an integer in JSON). Remembers the line of every field path, so an
 * error can point at it. Duplicate keys are errors; a key given explicitly overrides a merged one.
 */
final class YamlTree {

    /** Why a document cannot become JSON, with the (1-based) line it is about. */
    static final class YamlError extends RuntimeException {
        final int line;
        final String path;

        YamlError(int line, String path, String message) {
            super(message);
            this.line = line;
            this.path = path;
        }
    }

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    private static final Resolver RESOLVER = new Resolver();
    private static final Set<String> TRUE = Set.of("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON");
    private static final Set<String> FALSE = Set.of("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF");
    private static final Set<String> NULL = Set.of("", "~", "null", "Null", "NULL");
    private static final Pattern FLOAT = Pattern.compile("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
    private static final Pattern INT = Pattern.compile("[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[0-9]+)");
    private static final BigDecimal JSON_INTEGER_LIMIT = new BigDecimal("1e21"); // Go's JSON writes larger floats with an exponent

    private final int maxNodes;
    private final Map<String, Integer> lines = new HashMap<>();
    private final Set<Node> open = Collections.newSetFromMap(new IdentityHashMap<>());
    private int nodes;

    private YamlTree(int maxNodes) {
        this.maxNodes = maxNodes;
    }

    /** The document's JSON and the line of each field path ({@code spec.a[0].b}); "" is the document. */
    record Converted(JsonNode json, Map<String, Integer> lines) {
    }

    static Converted convert(Node root, int maxNodes) {
        YamlTree tree = new YamlTree(maxNodes);
        JsonNode json = tree.value(root, "");
        return new Converted(json, tree.lines);
    }

    static int line(Node node) {
        return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
    }

    private JsonNode value(Node node, String path) {
        if (++nodes > maxNodes) {
            throw new YamlError(line(node), "(document)", "the document expands to more than " + maxNodes
                    + " values (limit on alias expansion)");
        }
        lines.putIfAbsent(path, line(node));
        if (!open.add(node)) {
            throw new YamlError(line(node), path, "an alias refers to the node that contains it (recursive alias)");
        }
        try {
            if (node instanceof ScalarNode s) {
                try {
                    return scalar(s);
                } catch (YamlError e) {
                    throw new YamlError(line(s), path, e.getMessage());
                }
            }
            if (node instanceof SequenceNode seq) {
                ArrayNode array = F.arrayNode();
                List<Node> items = seq.getValue();
                for (int i = 0; i < items.size(); i++) {
                    array.add(value(items.get(i), FieldPaths.index(path, i)));
                }
                return array;
            }
            return mapping((MappingNode) node, path);
        } finally {
            open.remove(node);
        }
    }

    private ObjectNode mapping(MappingNode map, String path) {
        ObjectNode object = F.objectNode();
        Map<String, Integer> explicit = new HashMap<>();
        List<Node> merges = new ArrayList<>();
        for (NodeTuple t : map.getValue()) {
            if (t.getKeyNode() instanceof ScalarNode k && k.getTag().equals(Tag.MERGE)) {
                merges.add(t.getValueNode());
                continue;
            }
            String key = key(t.getKeyNode(), path);
            String at = FieldPaths.child(path, key);
            Integer first = explicit.putIfAbsent(key, line(t.getKeyNode()));
            if (first != null) {
                throw new YamlError(line(t.getKeyNode()), at, "duplicate key " + quoted(key) + " (first at line " + first + ")");
            }
            lines.put(at, line(t.getKeyNode()));
            object.set(key, value(t.getValueNode(), at));
        }
        // Merged keys never override explicit ones; among merged maps the first wins (YAML merge key spec).
        for (Node merge : merges) {
            List<Node> sources = new ArrayList<>();
            if (merge instanceof MappingNode) {
                sources.add(merge);
            } else if (merge instanceof SequenceNode seq && seq.getValue().stream().allMatch(n -> n instanceof MappingNode)) {
                sources.addAll(seq.getValue());
            } else {
                throw new YamlError(line(merge), path, "a merge key (<<) takes a mapping or a list of mappings");
            }
            for (Node source : sources) {
                JsonNode merged = value(source, path);
                Set<String> names = new LinkedHashSet<>();
                merged.fieldNames().forEachRemaining(names::add);
                for (String name : names) {
                    if (!object.has(name)) {
                        object.set(name, merged.get(name));
                    }
                }
            }
        }
        return object;
    }

    private String key(Node keyNode, String path) {
        if (!(keyNode instanceof ScalarNode s)) {
            throw new YamlError(line(keyNode), path, "a mapping key must be a string, not a " + keyNode.getNodeId());
        }
        JsonNode resolved;
        try {
            resolved = scalar(s);
        } catch (YamlError e) {
            throw new YamlError(line(s), path, e.getMessage());
        }
        if (resolved.isNull()) {
            return "null";
        }
        return resolved.isTextual() ? resolved.asText() : resolved.toString();
    }

    private static JsonNode scalar(ScalarNode s) {
        String v = s.getValue();
        boolean implicit = s.isPlain() && s.getTag().equals(RESOLVER.resolve(NodeId.scalar, v, true));
        if (!implicit) {
            Tag tag = s.getTag();
            if (tag.equals(Tag.NULL)) {
                return F.nullNode();
            }
            if (tag.equals(Tag.BOOL) || tag.equals(Tag.INT) || tag.equals(Tag.FLOAT)) {
                JsonNode typed = plain(v);
                if (typed.isTextual()) {
                    throw new YamlError(line(s), null, "cannot read " + quoted(v) + " as " + tag.getValue());
                }
                return typed;
            }
            return F.textNode(v); // quoted, block and !!str scalars are strings
        }
        return plain(v);
    }

    /** A plain scalar as go-yaml v2 resolves it. */
    private static JsonNode plain(String v) {
        if (NULL.contains(v)) {
            return F.nullNode();
        }
        if (TRUE.contains(v)) {
            return F.booleanNode(true);
        }
        if (FALSE.contains(v)) {
            return F.booleanNode(false);
        }
        if (v.startsWith(".")) {
            return special(v); // go-yaml v2 reads .5 as a string; only .inf and .nan are special
        }
        String digits = v.replace("_", "");
        if (!digits.isEmpty() && INT.matcher(digits).matches()) {
            BigInteger n = integer(digits);
            if (n != null) {
                return n.bitLength() < 64 ? F.numberNode(n.longValue()) : F.numberNode(n);
            }
        }
        if (FLOAT.matcher(digits).matches()) {
            BigDecimal d = new BigDecimal(digits.startsWith("+") ? digits.substring(1) : digits);
            if (d.abs().compareTo(JSON_INTEGER_LIMIT) < 0 && d.stripTrailingZeros().scale() <= 0) {
                BigInteger n = d.toBigIntegerExact();
                return n.bitLength() < 64 ? F.numberNode(n.longValue()) : F.numberNode(n);
            }
            return F.numberNode(d.doubleValue());
        }
        return special(v);
    }

    private static JsonNode special(String v) {
        switch (v) {
            case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan", ".NaN", ".NAN" ->
                    throw new YamlError(0, null, quoted(v) + " is not a number JSON can carry");
            default -> {
                return F.textNode(v);
            }
        }
    }

    private static BigInteger integer(String s) {
        boolean negative = s.startsWith("-");
        String body = s.startsWith("-") || s.startsWith("+") ? s.substring(1) : s;
        int radix = 10;
        if (body.length() > 1 && body.charAt(0) == '0') {
            char c = Character.toLowerCase(body.charAt(1));
            if (c == 'x' || c == 'o' || c == 'b') {
                radix = c == 'x' ? 16 : c == 'o' ? 8 : 2;
                body = body.substring(2);
            } else {
                radix = 8; // Go's ParseInt with base 0: a leading 0 is octal
                body = body.substring(1);
                if (!body.chars().allMatch(ch -> ch >= '0' && ch <= '7')) {
                    return null; // 089 is no integer for Go; it is a float (89)
                }
            }
        }
        BigInteger n = new BigInteger(body, radix);
        return negative ? n.negate() : n;
    }

    static String quoted(String s) {
        String shown = s.length() > 60 ? s.substring(0, 60) + "…" : s;
        StringBuilder b = new StringBuilder("\"");
        for (char c : shown.toCharArray()) {
            b.append(c < 0x20 || c == 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
        }
        return b.append('"').toString();
    }
}
