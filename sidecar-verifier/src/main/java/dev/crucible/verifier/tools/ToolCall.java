package dev.crucible.verifier.tools;

import java.util.Map;

/**
 * One action: {@code tool} is bash, read_file, write_file, edit or list; {@code args} holds
 * command / path / content / old_str / new_str / timeoutSeconds as the tool needs.
 */
public record ToolCall(String tool, Map<String, Object> args) {
    public ToolCall {
        args = args == null ? Map.of() : Map.copyOf(args);
    }

    public static ToolCall bash(String command) { return new ToolCall("bash", Map.of("command", command)); }

    public String string(String key) {
        Object v = args.get(key);
        if (v == null) return null;
        if (!(v instanceof String s)) throw new BadToolCallException("args." + key + ": must be a string");
        return s;
    }

    public String required(String key) {
        String v = string(key);
        if (v == null) throw new BadToolCallException("args." + key + ": required for tool " + tool);
        return v;
    }

    public Integer integer(String key) {
        Object v = args.get(key);
        if (v == null) return null;
        if (!(v instanceof Number n)) throw new BadToolCallException("args." + key + ": must be a number");
        return n.intValue();
    }
}
