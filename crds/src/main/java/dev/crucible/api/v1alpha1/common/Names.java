package dev.crucible.api.v1alpha1.common;

/** Name grammars Kubernetes uses (RFC 1123), shared by every reference field. */
public final class Names {
    public static final String DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";
    public static final String DNS_LABEL = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
    public static final String ENV_VAR = "^[A-Za-z_][A-Za-z0-9_]*$";

    private Names() {
    }
}
