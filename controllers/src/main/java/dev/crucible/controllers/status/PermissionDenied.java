package dev.crucible.controllers.status;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An RBAC refusal by the API server (403 whose message names the user, verb and resource), as opposed
 * to other 403s such as an exceeded ResourceQuota.
 */
public record PermissionDenied(String user, String verb, String resource, String group, String namespace) {

    /** kube-apiserver's RBAC message: {@code User "u" cannot VERB resource "R" in API group "G" in the namespace "N"}. */
    private static final Pattern RBAC = Pattern.compile("User \"([^\"]*)\" cannot (\\S+) resource \"([^\"]+)\" in API group \"([^\"]*)\""
            + "(?: in the namespace \"([^\"]*)\")?");

    /** The RBAC refusal in {@code t} or its causes, if any. */
    public static Optional<PermissionDenied> of(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof KubernetesClientException e && e.getCode() == 403) {
                String message = ApiErrors.message(e);
                Optional<PermissionDenied> d = parse(message);
                if (d.isPresent()) {
                    return d;
                }
            }
        }
        return Optional.empty();
    }

    static Optional<PermissionDenied> parse(String message) {
        if (message == null) {
            return Optional.empty();
        }
        Matcher m = RBAC.matcher(message);
        return m.find() ? Optional.of(new PermissionDenied(m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)))
                : Optional.empty();
    }

    /** {@code pods}, or {@code deployments.apps}: the resource as a Role's rule names it. */
    public String qualifiedResource() {
        return group.isEmpty() ? resource : resource + "." + group;
    }

    /** One sentence naming the missing verb and resource, for a condition, an Event and the log. */
    public String describe() {
        return user + " may not " + verb + " " + qualifiedResource()
                + (namespace == null ? " at the cluster scope" : " in namespace " + namespace)
                + ": the operator's Role/ClusterRole lacks verb \"" + verb + "\" on resource \"" + resource
                + "\" (apiGroup \"" + group + "\")";
    }
}
