package io.fastleader.clients.network;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/** TLS engines for connections to brokers, from the JDK's stack, configured by {@link SecurityConfig}. */
final class TlsEngines {

    private TlsEngines() {
    }

    /**
     * A client-mode engine for the broker at {@code host}:{@code port}.
     *
     * @param host the broker's host name, checked against its certificate unless endpoint
     *             identification is off
     */
    static SSLEngine engine(SecurityConfig security, String host, int port) throws IOException, GeneralSecurityException {
        SSLEngine engine = context(security).createSSLEngine(host, port);
        SSLParameters parameters = engine.getSSLParameters();
        if (!security.endpointIdentification().isEmpty()) {
            parameters.setEndpointIdentificationAlgorithm(security.endpointIdentification().toUpperCase(java.util.Locale.ROOT));
        }
        engine.setSSLParameters(parameters);
        engine.setUseClientMode(true);
        return engine;
    }

    private static SSLContext context(SecurityConfig security) throws IOException, GeneralSecurityException {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trustStore(security));
        KeyManagerFactory keys = keyManagers(security);
        SSLContext context = SSLContext.getInstance(security.tlsProtocol());
        context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
        return context;
    }

    /** The trusted certificates, or null for the JDK's default trust. */
    private static KeyStore trustStore(SecurityConfig security) throws IOException, GeneralSecurityException {
        if (security.truststoreCertificates() != null) {
            return PemStores.trustStore(security.truststoreCertificates());
        }
        if (security.truststoreLocation() == null) {
            return null;
        }
        if (isPem(security.truststoreType())) {
            return PemStores.trustStore(Files.readString(Path.of(security.truststoreLocation())));
        }
        return load(security.truststoreLocation(), security.truststoreType(), security.truststorePassword());
    }

    /** The client's own key and certificate, or null without one. */
    private static KeyManagerFactory keyManagers(SecurityConfig security) throws IOException, GeneralSecurityException {
        KeyStore store;
        char[] entryPassword;
        if (security.keystoreKey() != null) {
            entryPassword = PemStores.randomEntryPassword();
            store = PemStores.keyStore(security.keystoreCertificateChain(), security.keystoreKey(), security.keyPassword(), entryPassword);
        } else if (security.keystoreLocation() == null) {
            return null;
        } else if (isPem(security.keystoreType())) {
            // One PEM file holds both the key and its chain, as Kafka reads it.
            String pem = Files.readString(Path.of(security.keystoreLocation()));
            entryPassword = PemStores.randomEntryPassword();
            store = PemStores.keyStore(pem, pem, security.keyPassword(), entryPassword);
        } else {
            String keyPassword = security.keyPassword() != null ? security.keyPassword() : security.keystorePassword();
            entryPassword = keyPassword == null ? null : keyPassword.toCharArray();
            store = load(security.keystoreLocation(), security.keystoreType(), security.keystorePassword());
        }
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store, entryPassword);
        return keys;
    }

    private static boolean isPem(String type) {
        return SecurityConfig.PEM.equalsIgnoreCase(type);
    }

    private static KeyStore load(String location, String type, String password) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            store.load(in, password == null ? null : password.toCharArray());
        }
        return store;
    }
}
