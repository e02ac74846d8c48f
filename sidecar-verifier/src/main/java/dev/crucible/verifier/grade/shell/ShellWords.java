package dev.crucible.verifier.grade.shell;

import java.util.ArrayList;
import java.util.List;

/** Splits a simple shell command into words (quotes and backslashes; no expansions). */
public final class ShellWords {
    private ShellWords() {}

    /** Returns an empty list when the command uses shell syntax we do not interpret (pipes, ;, &&, $). */
    public static List<String> split(String command) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < command.length(); i++) {
            char c = command.charAt(i);
            if (quote != 0) {
                if (c == quote) quote = 0;
                else if (c == '\\' && quote == '"' && i + 1 < command.length()) cur.append(command.charAt(++i));
                else cur.append(c);
            } else if (c == '\'' || c == '"') {
                quote = c;
                inWord = true;
            } else if (c == '\\' && i + 1 < command.length()) {
                cur.append(command.charAt(++i));
                inWord = true;
            } else if (Character.isWhitespace(c)) {
                if (inWord) out.add(cur.toString());
                cur.setLength(0);
                inWord = false;
            } else if ("|;&$`<>()".indexOf(c) >= 0) {
                return List.of();
            } else {
                cur.append(c);
                inWord = true;
            }
        }
        if (quote != 0) return List.of();
        if (inWord) out.add(cur.toString());
        return out;
    }
}
