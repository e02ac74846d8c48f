package dev.crucible.operator.webhook;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;

/**
 * PEM in and out. Keys are written as PKCS#8 ({@code PRIVATE KEY}), which Vert.x, Go (the API server)
 * and openssl all read; reading also accepts SEC1 ({@code EC PRIVATE KEY}) and PKCS#1, so a Secret
 * someone filled by hand with openssl output still parses.
 */
public final class PemCodec {

    private PemCodec() {
    }

    /** Every certificate in a PEM bundle, in order; fails on anything that is not a certificate. */
    public static List<X509Certificate> certificates(String pem) {
        List<X509Certificate> result = new ArrayList<>();
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object o;
            while ((o = parser.readObject()) != null) {
                if (!(o instanceof X509CertificateHolder holder)) {
                    throw new IllegalArgumentException("expected a CERTIFICATE block, found " + o.getClass().getSimpleName());
                }
                result.add(new JcaX509CertificateConverter().getCertificate(holder));
            }
        } catch (IOException | CertificateException e) {
            throw new IllegalArgumentException("not a PEM certificate: " + e.getMessage(), e);
        }
        if (result.isEmpty()) {
            throw new IllegalArgumentException("no PEM certificate found");
        }
        return result;
    }

    public static PrivateKey privateKey(String pem) {
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object o = parser.readObject();
            JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
            if (o instanceof PrivateKeyInfo info) {
                return converter.getPrivateKey(info);
            }
            if (o instanceof PEMKeyPair pair) {
                return converter.getKeyPair(pair).getPrivate();
            }
            throw new IllegalArgumentException("expected a PRIVATE KEY block, found " + (o == null ? "nothing" : o.getClass().getSimpleName()));
        } catch (IOException e) {
            throw new IllegalArgumentException("not a PEM private key: " + e.getMessage(), e);
        }
    }

    public static String encode(X509Certificate certificate) {
        return write(certificate);
    }

    public static String encode(PrivateKey key) {
        try {
            return write(new JcaPKCS8Generator(key, null));
        } catch (org.bouncycastle.util.io.pem.PemGenerationException e) {
            throw new IllegalStateException("cannot encode the private key: " + e.getMessage(), e);
        }
    }

    private static String write(Object o) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }
}
