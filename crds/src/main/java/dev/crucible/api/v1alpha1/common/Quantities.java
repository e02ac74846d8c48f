package dev.crucible.api.v1alpha1.common;

/** The Kubernetes quantity grammar, as a regular expression the schema can carry. */
public final class Quantities {
    /** Non-negative, as Kubernetes requires of resource requests, limits and sizes. */
    public static final String PATTERN =
            "^(\\+)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";

    private Quantities() {
    }
}
