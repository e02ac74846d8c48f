package dev.crucible.api.validation;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import com.networknt.schema.regex.RegularExpression;
import com.networknt.schema.regex.RegularExpressionFactory;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Schema {@code pattern}s evaluated as the API server evaluates them: RE2 (Go's regexp) with an
 * unanchored search. Unlike java.util.regex, {@code $} never matches before a final newline, so
 * {@code "abc\n"} fails {@code ^[a-z]+$} here as it does in the cluster.
 */
final class Re2Patterns implements RegularExpressionFactory {

    static final Re2Patterns INSTANCE = new Re2Patterns();

    private final ConcurrentHashMap<String, Pattern> compiled = new ConcurrentHashMap<>();

    private Re2Patterns() {
    }

    @Override
    public RegularExpression getRegularExpression(String regex) {
        Pattern pattern = compile(regex);
        return value -> pattern.matcher(value).find();
    }

    Pattern compile(String regex) {
        return compiled.computeIfAbsent(regex, r -> {
            try {
                return Pattern.compile(r);
            } catch (PatternSyntaxException e) {
                throw new IllegalStateException("CRD pattern is not valid RE2: " + r, e);
            }
        });
    }
}
