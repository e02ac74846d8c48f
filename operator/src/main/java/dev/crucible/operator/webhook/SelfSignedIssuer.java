package dev.crucible.operator.webhook;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Issues the webhook's own CA and serving certificate with BouncyCastle (ECDSA P-256: small keys,
 * fast handshakes, accepted by Go's TLS stack). Pure: time comes in as an argument, nothing is stored.
 * The JDK's providers do the key generation and signing, so no security provider is registered.
 */
public final class SelfSignedIssuer {

    /** Backdating absorbs clock skew between the operator and the API server. */
    static final Duration BACKDATE = Duration.ofHours(1);

    private static final SecureRandom RANDOM = new SecureRandom();

    private SelfSignedIssuer() {
    }

    /**
     * A new CA and a serving certificate signed by it. {@code previousCas} (the CAs trusted so far) stay in
     * the bundle while they are unexpired, so the API server keeps trusting replicas that still serve a
     * certificate of the old CA until they reload.
     */
    public static WebhookCertificate issueAll(SubjectAlternativeNames names, Instant now, Duration caValidity,
            Duration servingValidity, List<X509Certificate> previousCas) {
        KeyPair caKeys = newKeyPair();
        X500Name caName = new X500Name("CN=crucible-webhook-ca-" + now.getEpochSecond());
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = builder(caName, caName, now, now.plus(caValidity), caKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(caKeys.getPublic()));
            X509Certificate ca = sign(b, caKeys.getPrivate());
            StringBuilder bundle = new StringBuilder(PemCodec.encode(ca));
            for (X509Certificate old : previousCas) {
                if (old.getNotAfter().toInstant().isAfter(now)) {
                    bundle.append(PemCodec.encode(old));
                }
            }
            return serving(bundle.toString(), ca, caKeys.getPrivate(), names, now, servingValidity);
        } catch (GeneralSecurityException | CertIOException e) {
            throw new IllegalStateException("cannot issue the webhook CA: " + e.getMessage(), e);
        }
    }

    /** A new serving certificate from the stored CA; CAs of the bundle that have expired are dropped. */
    public static WebhookCertificate issueServing(WebhookCertificate current, SubjectAlternativeNames names, Instant now,
            Duration servingValidity) {
        List<X509Certificate> cas = current.caCertificates();
        StringBuilder bundle = new StringBuilder(PemCodec.encode(cas.get(0)));
        for (X509Certificate old : cas.subList(1, cas.size())) {
            if (old.getNotAfter().toInstant().isAfter(now)) {
                bundle.append(PemCodec.encode(old));
            }
        }
        return serving(bundle.toString(), cas.get(0), current.signingCaKey(), names, now, servingValidity);
    }

    /**
     * A client certificate (extendedKeyUsage clientAuth only, so it can never serve) from the CA of
     * {@code ca}; returned as a WebhookCertificate whose certificate/key are the client's.
     */
    public static WebhookCertificate issueClient(WebhookCertificate ca, String commonName, Instant now, Duration validity) {
        X509Certificate caCert = ca.signingCa();
        KeyPair keys = newKeyPair();
        Instant notAfter = min(now.plus(validity), caCert.getNotAfter().toInstant());
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = builder(X500Name.getInstance(caCert.getSubjectX500Principal().getEncoded()),
                    new X500Name("CN=" + commonName), now, notAfter, keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth))
                    .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCert))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
            X509Certificate cert = sign(b, ca.signingCaKey());
            return new WebhookCertificate(ca.caBundle(), ca.caKey(), PemCodec.encode(cert), PemCodec.encode(keys.getPrivate()));
        } catch (GeneralSecurityException | CertIOException e) {
            throw new IllegalStateException("cannot issue the client certificate " + commonName + ": " + e.getMessage(), e);
        }
    }

    private static WebhookCertificate serving(String caBundle, X509Certificate ca, PrivateKey caKey,
            SubjectAlternativeNames names, Instant now, Duration validity) {
        KeyPair keys = newKeyPair();
        // Never outlive the CA: the chain would stop verifying before the renewal check saw it coming.
        Instant notAfter = min(now.plus(validity), ca.getNotAfter().toInstant());
        List<GeneralName> sans = new ArrayList<>();
        names.dnsNames().forEach(d -> sans.add(new GeneralName(GeneralName.dNSName, d)));
        names.ipAddresses().forEach(ip -> sans.add(new GeneralName(GeneralName.iPAddress, ip)));
        String cn = names.dnsNames().isEmpty() ? names.ipAddresses().iterator().next() : names.dnsNames().iterator().next();
        try {
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder b = builder(X500Name.getInstance(ca.getSubjectX500Principal().getEncoded()),
                    new X500Name("CN=" + cn), now, notAfter, keys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
                    .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans.toArray(GeneralName[]::new)))
                    .addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(ca))
                    .addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
            X509Certificate cert = sign(b, caKey);
            return new WebhookCertificate(caBundle, PemCodec.encode(caKey), PemCodec.encode(cert), PemCodec.encode(keys.getPrivate()));
        } catch (GeneralSecurityException | CertIOException e) {
            throw new IllegalStateException("cannot issue the webhook serving certificate: " + e.getMessage(), e);
        }
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, Instant now, Instant notAfter, PublicKey key) {
        // A positive 127-bit random serial (RFC 5280: positive, at most 20 octets, unpredictable).
        BigInteger serial = new BigInteger(127, RANDOM).setBit(0);
        return new JcaX509v3CertificateBuilder(issuer, serial, Date.from(now.minus(BACKDATE)), Date.from(notAfter), subject, key);
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key) throws GeneralSecurityException {
        try {
            return new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
        } catch (OperatorCreationException e) {
            throw new GeneralSecurityException(e.getMessage(), e);
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("no EC P-256 key generator in this JVM: " + e.getMessage(), e);
        }
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }
}
