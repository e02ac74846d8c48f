package dev.crucible.api.v1alpha1;

/** Group, version and category shared by the four kinds. */
public final class Api {
    public static final String GROUP = "crucible.dev";
    public static final String VERSION = "v1alpha1";
    public static final String API_VERSION = GROUP + "/" + VERSION;
    public static final String CATEGORY = "crucible";

    private Api() {
    }
}
