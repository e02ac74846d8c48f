package dev.crucible.snapshot.client.tls;

import java.net.Socket;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The operator's side of the agent's mutual TLS: trusts only the agent CA, presents the
 * operator's client certificate, and checks the agent's certificate names {@code serverName}
 * (agents are reached by pod IP, which no certificate can name ahead of time, so all agents share
 * one DNS name in their certificate and the client checks that name instead of the IP).
 *
 * @param caFile         the agent CA (PEM)
 * @param clientCertFile the operator's client certificate (PEM, clientAuth)
 * @param clientKeyFile  its PKCS#8 key
 * @param serverName     the DNS name every agent certificate carries
 */
public record AgentClientTls(Path caFile, Path clientCertFile, Path clientKeyFile, String serverName) {

    public static final String DEFAULT_SERVER_NAME = "crucible-snapshot-agent";

    public SSLContext sslContext() {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            int i = 0;
            for (X509Certificate ca : PemFiles.certificates(caFile)) {
                trust.setCertificateEntry("ca-" + i++, ca);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
            tmf.init(trust);
            X509TrustManager pkix = (X509TrustManager) tmf.getTrustManagers()[0];

            char[] pw = new char[0];
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            PrivateKey key = PemFiles.privateKey(clientKeyFile);
            keys.setKeyEntry("client", key, pw, PemFiles.certificates(clientCertFile).toArray(X509Certificate[]::new));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, pw);

            SSLContext ctx = SSLContext.getInstance("TLSv1.3");
            ctx.init(kmf.getKeyManagers(), new TrustManager[] {new NamedServerTrust(pkix, serverName)}, new SecureRandom());
            return ctx;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("cannot build the snapshot agent TLS context from " + caFile + ", " + clientCertFile
                    + ": " + e.getMessage(), e);
        }
    }

    /** Chain to the agent CA (PKIX), then the leaf must carry {@code name} as a DNS SAN; the URL's IP is not checked. */
    private static final class NamedServerTrust extends X509ExtendedTrustManager {
        private final X509TrustManager pkix;
        private final String name;

        NamedServerTrust(X509TrustManager pkix, String name) {
            this.pkix = pkix;
            this.name = name;
        }

        private void check(X509Certificate[] chain, String authType) throws CertificateException {
            pkix.checkServerTrusted(chain, authType);
            if (!dnsNames(chain[0]).contains(name)) {
                throw new CertificateException("snapshot agent certificate does not name " + name + " (has " + dnsNames(chain[0]) + ")");
            }
        }

        private static List<String> dnsNames(X509Certificate c) throws CertificateParsingException {
            var sans = c.getSubjectAlternativeNames();
            return sans == null ? List.of() : sans.stream().filter(s -> (Integer) s.get(0) == 2).map(s -> (String) s.get(1)).toList();
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            check(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            check(chain, authType);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            check(chain, authType);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("client side only");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            throw new CertificateException("client side only");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            throw new CertificateException("client side only");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return pkix.getAcceptedIssuers();
        }
    }
}
