package io.fastleader.clients.network;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Key and trust stores built from PEM text, for {@code ssl.keystore.type=PEM} and
 * {@code ssl.truststore.type=PEM} as Kafka reads them: X.509 certificates in
 * {@code BEGIN CERTIFICATE} blocks, and one PKCS#8 private key, either plain
 * ({@code BEGIN PRIVATE KEY}) or encrypted with {@code ssl.key.password}
 * ({@code BEGIN ENCRYPTED PRIVATE KEY}). Line breaks inside a block are optional, so a value can
 * sit on one line of a properties file.
 */
final class PemStores {

    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);
    private static final String CERTIFICATE = "CERTIFICATE";
    private static final String PRIVATE_KEY = "PRIVATE KEY";
    private static final String ENCRYPTED_PRIVATE_KEY = "ENCRYPTED PRIVATE KEY";
    /** PKCS#8 does not name the key's algorithm in a way KeyFactory takes, so each is tried in turn. */
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "DSA", "EdDSA", "XDH");

    private PemStores() {
    }

    /**
     * A trust store holding every certificate in {@code pem}.
     *
     * @throws GeneralSecurityException if {@code pem} holds no certificate or one that does not parse
     */
    static KeyStore trustStore(String pem) throws GeneralSecurityException {
        KeyStore store = emptyStore();
        List<Certificate> certificates = certificates(pem);
        for (int i = 0; i < certificates.size(); i++) {
            store.setCertificateEntry("certificate-" + i, certificates.get(i));
        }
        return store;
    }

    /**
     * A key store with one entry: the private key in {@code keyPem} with the certificate chain in
     * {@code chainPem}, the key's own certificate first.
     *
     * @param keyPassword decrypts an encrypted key; null for a plain one
     * @param entryPassword protects the entry inside the returned store, for the key manager to unlock it
     * @throws GeneralSecurityException if either does not parse, or the key is encrypted and the password is missing or wrong
     */
    static KeyStore keyStore(String chainPem, String keyPem, String keyPassword, char[] entryPassword)
        throws GeneralSecurityException {
        KeyStore store = emptyStore();
        store.setKeyEntry("key", privateKey(keyPem, keyPassword), entryPassword, certificates(chainPem).toArray(new Certificate[0]));
        return store;
    }

    /** A password for a store that lives only in memory. */
    static char[] randomEntryPassword() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return Base64.getEncoder().encodeToString(bytes).toCharArray();
    }

    private static List<Certificate> certificates(String pem) throws GeneralSecurityException {
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        List<Certificate> certificates = new ArrayList<>();
        for (byte[] der : blocks(pem, CERTIFICATE)) {
            certificates.add(factory.generateCertificate(new ByteArrayInputStream(der)));
        }
        if (certificates.isEmpty()) {
            throw new GeneralSecurityException("no certificate found: expected -----BEGIN CERTIFICATE----- blocks");
        }
        return certificates;
    }

    private static PrivateKey privateKey(String pem, String password) throws GeneralSecurityException {
        List<byte[]> plain = blocks(pem, PRIVATE_KEY);
        List<byte[]> encrypted = blocks(pem, ENCRYPTED_PRIVATE_KEY);
        if (plain.size() + encrypted.size() != 1) {
            throw new GeneralSecurityException("expected exactly one PKCS#8 private key (-----BEGIN PRIVATE KEY----- or "
                + "-----BEGIN ENCRYPTED PRIVATE KEY-----), found " + (plain.size() + encrypted.size()));
        }
        if (plain.isEmpty()) {
            if (password == null) {
                throw new GeneralSecurityException("the private key is encrypted and no key password is given");
            }
            return decodeKey(decrypt(encrypted.get(0), password));
        }
        return decodeKey(new PKCS8EncodedKeySpec(plain.get(0)));
    }

    private static PKCS8EncodedKeySpec decrypt(byte[] der, String password) throws GeneralSecurityException {
        EncryptedPrivateKeyInfo info;
        try {
            info = new EncryptedPrivateKeyInfo(der);
        } catch (IOException e) {
            throw new GeneralSecurityException("the encrypted private key does not parse: " + e.getMessage(), e);
        }
        // For PBES2 (OpenSSL's default) the JDK names the whole scheme, e.g. PBEWithHmacSHA256AndAES_256, only in the parameters.
        String algorithm = info.getAlgParameters() != null ? info.getAlgParameters().toString() : info.getAlgName();
        try {
            Cipher cipher = Cipher.getInstance(algorithm);
            cipher.init(Cipher.DECRYPT_MODE,
                SecretKeyFactory.getInstance(algorithm).generateSecret(new PBEKeySpec(password.toCharArray())),
                info.getAlgParameters());
            return info.getKeySpec(cipher);
        } catch (InvalidKeySpecException e) {
            throw new GeneralSecurityException("cannot decrypt the private key: wrong key password?", e);
        }
    }

    private static PrivateKey decodeKey(PKCS8EncodedKeySpec spec) throws GeneralSecurityException {
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException e) {
                // Not this algorithm; the next one may fit.
            }
        }
        throw new GeneralSecurityException("the private key is none of " + KEY_ALGORITHMS);
    }

    /** The decoded bodies of the blocks of {@code type}, in order. */
    private static List<byte[]> blocks(String pem, String type) throws GeneralSecurityException {
        List<byte[]> blocks = new ArrayList<>();
        Matcher matcher = BLOCK.matcher(pem);
        while (matcher.find()) {
            if (matcher.group(1).equals(type)) {
                try {
                    blocks.add(Base64.getMimeDecoder().decode(matcher.group(2)));
                } catch (IllegalArgumentException e) {
                    throw new GeneralSecurityException("a " + type + " block is not base64: " + e.getMessage(), e);
                }
            }
        }
        return blocks;
    }

    private static KeyStore emptyStore() throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
        } catch (IOException e) {
            throw new GeneralSecurityException("cannot create an in-memory key store", e);
        }
        return store;
    }
}
