package dev.crucible.probe.serve;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Validates a {@code POST /v1/score} body:
 * <pre>{"items": [{"id": "t1", "text": "…", "valid": true},
 *            {"id": "t2", "turns": ["…", "…"], "valid": false}]}</pre>
 * Exactly one of text / turns per item; {@code valid} defaults to true; ids default to the index
 * and must be unique. Every refusal names the field.
 */
public final class ScoreRequestParser {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final ServerLimits limits;

    public ScoreRequestParser(ServerLimits limits) {
        this.limits = limits;
    }

    public List<ScoreItem> parse(String body) {
        JsonNode root;
        try {
            root = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            throw new BadRequest(400, "body", "body is not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new BadRequest(400, "body", "body must be a JSON object with an 'items' array");
        }
        JsonNode items = root.get("items");
        if (items == null || !items.isArray()) {
            throw new BadRequest(400, "items", "'items' must be an array of {id, text|turns, valid}");
        }
        if (items.isEmpty()) {
            throw new BadRequest(400, "items", "'items' must not be empty");
        }
        if (items.size() > limits.maxItems()) {
            throw new BadRequest(413, "items", "at most " + limits.maxItems() + " items per request, got "
                    + items.size());
        }
        List<ScoreItem> out = new ArrayList<>(items.size());
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < items.size(); i++) {
            String at = "items[" + i + "]";
            JsonNode item = items.get(i);
            if (!item.isObject()) {
                throw new BadRequest(400, at, at + " must be an object");
            }
            String id = String.valueOf(i);
            if (item.has("id")) {
                if (!item.get("id").isTextual() && !item.get("id").isIntegralNumber()) {
                    throw new BadRequest(400, at + ".id", at + ".id must be a string");
                }
                id = item.get("id").asText();
            }
            if (!ids.add(id)) {
                throw new BadRequest(400, at + ".id", "duplicate id '" + id + "'");
            }
            boolean valid = true;
            if (item.has("valid")) {
                if (!item.get("valid").isBoolean()) {
                    throw new BadRequest(400, at + ".valid", at + ".valid must be true or false");
                }
                valid = item.get("valid").booleanValue();
            }
            boolean hasText = item.has("text");
            boolean hasTurns = item.has("turns");
            if (hasText == hasTurns) {
                throw new BadRequest(400, at + ".text", at + " needs exactly one of 'text' or 'turns'");
            }
            List<String> turns = new ArrayList<>();
            if (hasText) {
                turns.add(text(item.get("text"), at + ".text"));
            } else {
                JsonNode t = item.get("turns");
                if (!t.isArray() || t.isEmpty()) {
                    throw new BadRequest(400, at + ".turns", at + ".turns must be a non-empty array of strings");
                }
                if (t.size() > limits.maxTurns()) {
                    throw new BadRequest(413, at + ".turns", "at most " + limits.maxTurns() + " turns per item");
                }
                for (int j = 0; j < t.size(); j++) {
                    turns.add(text(t.get(j), at + ".turns[" + j + "]"));
                }
            }
            out.add(new ScoreItem(id, turns, valid));
        }
        return out;
    }

    private String text(JsonNode n, String field) {
        if (n == null || !n.isTextual()) {
            throw new BadRequest(400, field, field + " must be a string");
        }
        String s = n.asText();
        if (s.isBlank()) {
            throw new BadRequest(400, field, field + " must not be blank");
        }
        if (s.length() > limits.maxCharsPerTurn()) {
            throw new BadRequest(413, field, field + " is longer than " + limits.maxCharsPerTurn() + " characters");
        }
        return s;
    }
}
