package dev.crucible.snapshot.agent;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.crucible.snapshot.criu.CriuException;
import dev.crucible.snapshot.engine.SessionConflictException;
import dev.crucible.snapshot.engine.SnapshotFailedException;
import dev.crucible.snapshot.store.SnapshotNotFoundException;
import dev.crucible.snapshot.target.NoSuchProcessException;
import java.util.stream.Collectors;

/** Maps exceptions to HTTP status codes; the message always says which field or step was wrong. */
final class ApiErrors {

    record Error(int status, String message) {
    }

    private ApiErrors() {
    }

    static Error of(Throwable t) {
        if (t instanceof JsonMappingException jm) {
            String field = jm.getPath().stream().map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                    .collect(Collectors.joining("."));
            return new Error(400, "invalid request body" + (field.isEmpty() ? "" : " at field '" + field + "'") + ": "
                    + jm.getOriginalMessage());
        }
        if (t instanceof JsonProcessingException jp) {
            return new Error(400, "request body is not valid JSON: " + jp.getOriginalMessage());
        }
        if (t instanceof SecurityException) {
            return new Error(403, t.getMessage());
        }
        if (t instanceof SnapshotNotFoundException || t instanceof NoSuchProcessException) {
            return new Error(404, t.getMessage());
        }
        if (t instanceof IllegalArgumentException) {
            return new Error(400, t.getMessage());
        }
        if (t instanceof SessionConflictException) {
            return new Error(409, t.getMessage());
        }
        if (t instanceof IllegalStateException && t.getMessage() != null && t.getMessage().contains("already exists")) {
            return new Error(409, t.getMessage());
        }
        if (t instanceof SnapshotFailedException || t instanceof CriuException) {
            return new Error(500, t.getMessage());
        }
        return new Error(500, t.getClass().getSimpleName() + ": " + t.getMessage());
    }
}
