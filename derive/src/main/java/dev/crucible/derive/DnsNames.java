package dev.crucible.derive;

import java.util.Locale;

/** Kubernetes object names (DNS-1123 subdomain labels) made from free text such as a directory name. */
final class DnsNames {
    private static final int MAX = 63;

    private DnsNames() {
    }

    static String of(String... parts) {
        StringBuilder s = new StringBuilder();
        for (String part : parts) {
            if (part == null || part.isBlank()) {
                continue;
            }
            if (s.length() > 0) {
                s.append('-');
            }
            s.append(part.toLowerCase(Locale.ROOT));
        }
        String name = s.toString().replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
        if (name.length() > MAX) {
            name = name.substring(0, MAX).replaceAll("-+$", "");
        }
        return name.isEmpty() ? "derived" : name;
    }
}
