package dev.crucible.operator.webhook;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The names the serving certificate must carry. The API server dials a webhook Service as
 * {@code <svc>.<ns>.svc} and checks the name against the certificate's SANs only (Go ignores the
 * common name), so these two DNS names are the minimum; extra entries (an IP such as 127.0.0.1 for
 * a webhook registered by URL, another DNS name) come from configuration.
 */
public record SubjectAlternativeNames(Set<String> dnsNames, Set<String> ipAddresses) {

    private static final Pattern IPV4 = Pattern.compile("^\\d{1,3}(\\.\\d{1,3}){3}$");

    public SubjectAlternativeNames {
        dnsNames = Set.copyOf(new TreeSet<>(dnsNames));
        ipAddresses = Set.copyOf(new TreeSet<>(ipAddresses));
        if (dnsNames.isEmpty() && ipAddresses.isEmpty()) {
            throw new IllegalArgumentException("a serving certificate needs at least one subject alternative name");
        }
    }

    /**
     * {@code <service>.<namespace>.svc} and {@code <service>.<namespace>.svc.<clusterDomain>}, plus
     * each extra entry: an IP literal becomes an IP SAN, anything else a DNS SAN.
     */
    public static SubjectAlternativeNames forService(String service, String namespace, String clusterDomain, List<String> extra) {
        Set<String> dns = new TreeSet<>();
        Set<String> ips = new TreeSet<>();
        dns.add(service + "." + namespace + ".svc");
        dns.add(service + "." + namespace + ".svc." + clusterDomain);
        for (String e : extra) {
            String s = e.trim();
            if (s.isEmpty()) {
                continue;
            }
            if (isIpLiteral(s)) {
                ips.add(normalizeIp(s));
            } else {
                dns.add(s.toLowerCase(java.util.Locale.ROOT));
            }
        }
        return new SubjectAlternativeNames(dns, ips);
    }

    /** The SANs a certificate carries (DNS names lower-cased, IPs normalized), for comparison. */
    public static SubjectAlternativeNames of(X509Certificate certificate) {
        Set<String> dns = new TreeSet<>();
        Set<String> ips = new TreeSet<>();
        try {
            Collection<List<?>> names = certificate.getSubjectAlternativeNames();
            if (names != null) {
                for (List<?> n : names) {
                    int type = (Integer) n.get(0);
                    if (type == 2) {
                        dns.add(((String) n.get(1)).toLowerCase(java.util.Locale.ROOT));
                    } else if (type == 7) {
                        ips.add(normalizeIp((String) n.get(1)));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            throw new IllegalArgumentException("unreadable subject alternative names: " + e.getMessage(), e);
        }
        if (dns.isEmpty() && ips.isEmpty()) {
            throw new IllegalArgumentException("the certificate has no subject alternative names");
        }
        return new SubjectAlternativeNames(dns, ips);
    }

    @Override
    public String toString() {
        Set<String> all = new TreeSet<>(dnsNames);
        ipAddresses.forEach(ip -> all.add("IP:" + ip));
        return String.join(", ", all);
    }

    private static boolean isIpLiteral(String s) {
        return IPV4.matcher(s).matches() || s.contains(":");
    }

    /** InetAddress on a literal does no DNS lookup; it only canonicalizes (::1 vs 0:0:0:0:0:0:0:1). */
    private static String normalizeIp(String s) {
        try {
            return InetAddress.getByName(s).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: " + s, e);
        }
    }
}
