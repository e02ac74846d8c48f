package dev.crucible.tracestore.auth;

import java.util.List;
import java.util.Map;

/** Who a bearer token is, as the API server's TokenReview said. */
public record Caller(String user, String uid, List<String> groups, Map<String, List<String>> extra) {}
