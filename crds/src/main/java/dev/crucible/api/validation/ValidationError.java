package dev.crucible.api.validation;

/**
 * One problem with one document. {@link #toString()} is the line users see:
 * {@code FILE:DOC: Kind/name: spec.path.to.field: message}.
 */
public record ValidationError(String file, int document, String kind, String name, String path, String message) {

    public ValidationError {
        path = path == null || path.isEmpty() ? "(document)" : path;
    }

    public String resource() {
        return (kind == null ? "?" : kind) + "/" + (name == null ? "?" : name);
    }

    @Override
    public String toString() {
        return file + ":" + document + ": " + resource() + ": " + path + ": " + message;
    }
}
