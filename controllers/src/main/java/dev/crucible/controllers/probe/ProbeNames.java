package dev.crucible.controllers.probe;

import dev.crucible.controllers.common.RolloutLabels;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Names and labels of what a ProbeModel owns. Names are deterministic so a restarted operator finds
 * what it created. A ProbeModel name is a DNS subdomain (dots, up to 253 characters, may start with a
 * digit) but a Service name must be a DNS-1035 label, so the base name is sanitized once here.
 */
public final class ProbeNames {

    /** On every owned object and on the training-report ConfigMap; the informers select on it. */
    public static final String PROBE_MODEL = "crucible.dev/probe-model";
    public static final String APP_NAME = "app.kubernetes.io/name";
    public static final String APP_NAME_VALUE = "crucible-probe-server";
    public static final String APP_INSTANCE = "app.kubernetes.io/instance";
    /** Pod-template annotation: a new probe.json must restart the servers (they read it at start). */
    public static final String CONFIG_HASH = "crucible.dev/probe-config-hash";
    /** Suffix of the ConfigMap the training Job (or a person) writes report.json into. */
    public static final String REPORT_SUFFIX = "-training-report";
    public static final String CONTAINER = "probe-server";
    public static final int PORT = 8080;

    private ProbeNames() {
    }

    /** Deployment and Service: {@code <name>-probe}, a DNS-1035 label of at most 63 characters. */
    public static String serverName(String probe) {
        String base = probe.toLowerCase(Locale.ROOT).replace('.', '-');
        if (!Character.isLetter(base.charAt(0))) {
            base = "p-" + base;
        }
        String name = base + "-probe";
        if (name.length() <= 63) {
            return name;
        }
        // Cut and add a hash of the full name, so two long names that share a prefix stay distinct.
        String hash = hash(probe).substring(0, 8);
        return base.substring(0, 63 - "-probe".length() - hash.length() - 1).replaceAll("-+$", "")
                + "-" + hash + "-probe";
    }

    /** The ConfigMap holding probe.json. */
    public static String configMapName(String probe) {
        return serverName(probe) + "-config";
    }

    /** The ConfigMap holding the training report: {@code <name>-training-report}. */
    public static String reportConfigMapName(String probe) {
        return probe + REPORT_SUFFIX;
    }

    /** In-cluster URL of the scoring API. */
    public static String endpoint(String probe, String namespace) {
        return "http://" + serverName(probe) + "." + namespace + ".svc:" + PORT;
    }

    /** The Deployment's selector: never changes for a given probe (a Deployment selector is immutable). */
    public static Map<String, String> selector(String probe) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(APP_NAME, APP_NAME_VALUE);
        labels.put(PROBE_MODEL, RolloutLabels.truncate(probe));
        return labels;
    }

    /** Labels of every owned object (and of its pods). */
    public static Map<String, String> labels(String probe) {
        Map<String, String> labels = selector(probe);
        labels.put(APP_INSTANCE, RolloutLabels.truncate(probe));
        labels.put(RolloutLabels.MANAGED_BY, RolloutLabels.MANAGED_BY_VALUE);
        return labels;
    }

    static String hash(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
