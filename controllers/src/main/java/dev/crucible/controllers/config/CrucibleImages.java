package dev.crucible.controllers.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Crucible's own images as the build writes them ({@code crucible/sidecar-verifier:<version>}, ...):
 * the names come from the root pom's {@code crucible.image.*} properties through a filtered resource,
 * so the operator's defaults, the chart (checked by HelmChartTest) and the image build cannot drift.
 */
public final class CrucibleImages {
    private static final Properties NAMES = load();

    private CrucibleImages() {
    }

    /** The tag every Crucible image gets: the project version. */
    public static String tag() {
        return NAMES.getProperty("tag");
    }

    /** {@code name:tag} of one image: operator, sidecar-verifier, snapshot-agent, probe-server, pause. */
    public static String reference(String image) {
        String name = NAMES.getProperty(image);
        if (name == null || image.equals("tag")) {
            throw new IllegalArgumentException("no Crucible image named " + image);
        }
        return name + ":" + tag();
    }

    public static String sidecarVerifier() {
        return reference("sidecar-verifier");
    }

    public static String probeServer() {
        return reference("probe-server");
    }

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = CrucibleImages.class.getResourceAsStream("images.properties")) {
            if (in == null) {
                throw new IllegalStateException("images.properties missing from the controllers jar");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        p.forEach((k, v) -> {
            if (v.toString().contains("${")) {
                throw new IllegalStateException("images.properties was not filtered by Maven: " + k + "=" + v);
            }
        });
        return p;
    }
}
