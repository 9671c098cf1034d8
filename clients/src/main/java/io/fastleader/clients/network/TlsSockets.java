package io.fastleader.clients.network;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/** Wraps a connected socket in TLS with the JDK's stack, configured by {@link SecurityConfig}. */
final class TlsSockets {

    private TlsSockets() {
    }

    /**
     * Performs the TLS handshake over {@code socket}, bounded by {@code handshakeTimeoutMs}.
     *
     * @param host the broker's host name, checked against its certificate unless endpoint
     *             identification is off
     */
    static SSLSocket wrap(Socket socket, String host, int port, SecurityConfig security, int handshakeTimeoutMs)
        throws IOException, GeneralSecurityException {
        SSLSocket tls = (SSLSocket) context(security).getSocketFactory().createSocket(socket, host, port, true);
        SSLParameters parameters = tls.getSSLParameters();
        if (!security.endpointIdentification().isEmpty()) {
            parameters.setEndpointIdentificationAlgorithm(security.endpointIdentification().toUpperCase(java.util.Locale.ROOT));
        }
        tls.setSSLParameters(parameters);
        tls.setUseClientMode(true);
        tls.setSoTimeout(handshakeTimeoutMs);
        tls.startHandshake();
        tls.setSoTimeout(0);
        return tls;
    }

    private static SSLContext context(SecurityConfig security) throws IOException, GeneralSecurityException {
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(security.truststoreLocation() == null
            ? null
            : load(security.truststoreLocation(), security.truststoreType(), security.truststorePassword()));
        KeyManagerFactory keys = null;
        if (security.keystoreLocation() != null) {
            keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            String keyPassword = security.keyPassword() != null ? security.keyPassword() : security.keystorePassword();
            keys.init(load(security.keystoreLocation(), security.keystoreType(), security.keystorePassword()),
                keyPassword == null ? null : keyPassword.toCharArray());
        }
        SSLContext context = SSLContext.getInstance(security.tlsProtocol());
        context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
        return context;
    }

    private static KeyStore load(String location, String type, String password) throws IOException, GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(type);
        try (InputStream in = Files.newInputStream(Path.of(location))) {
            store.load(in, password == null ? null : password.toCharArray());
        }
        return store;
    }
}
