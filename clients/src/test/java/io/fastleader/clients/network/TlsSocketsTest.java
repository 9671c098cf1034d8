package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** TLS handshakes with a local server that demands a client certificate signed by the test CA. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TlsSocketsTest {

    private final SSLServerSocket server;
    private final CompletableFuture<String> clientSeenByServer;

    TlsSocketsTest() throws Exception {
        char[] entryPassword = PemStores.randomEntryPassword();
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(PemStores.keyStore(Pem.SERVER_CERTIFICATE + Pem.CA, Pem.SERVER_KEY, null, entryPassword), entryPassword);
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(PemStores.trustStore(Pem.CA));
        SSLContext context = SSLContext.getInstance("TLSv1.3");
        context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
        server = (SSLServerSocket) context.getServerSocketFactory().createServerSocket(0, 1, InetAddress.getLoopbackAddress());
        server.setNeedClientAuth(true);
        clientSeenByServer = CompletableFuture.supplyAsync(this::acceptOne);
    }

    @AfterEach
    void close() throws Exception {
        server.close();
    }

    @Test
    void handshakesWithPemKeyAndTrustGivenAsValues() throws Exception {
        Map<String, Object> configs = Map.of(
            "security.protocol", "SSL",
            "ssl.truststore.type", "PEM",
            "ssl.truststore.certificates", Pem.CA,
            "ssl.keystore.type", "PEM",
            "ssl.keystore.certificate.chain", Pem.CLIENT_CERTIFICATE + Pem.CA,
            "ssl.keystore.key", Pem.CLIENT_KEY_ENCRYPTED,
            "ssl.key.password", Pem.CLIENT_KEY_PASSWORD);

        try (SSLSocket tls = handshake(SecurityConfig.fromKafkaConfigs(configs))) {
            assertThat(peerSubject(tls)).isEqualTo("CN=localhost");
        }
        assertThat(clientSeenByServer.get(10, TimeUnit.SECONDS)).isEqualTo("CN=fastleader client");
    }

    @Test
    void handshakesWithPemFilesForKeyAndTrust(@TempDir Path files) throws Exception {
        Path truststore = Files.writeString(files.resolve("ca.pem"), Pem.CA);
        Path keystore = Files.writeString(files.resolve("client.pem"), Pem.CLIENT_KEY + Pem.CLIENT_CERTIFICATE);
        Map<String, Object> configs = Map.of(
            "security.protocol", "SSL",
            "ssl.truststore.type", "PEM",
            "ssl.truststore.location", truststore.toString(),
            "ssl.keystore.type", "PEM",
            "ssl.keystore.location", keystore.toString());

        try (SSLSocket tls = handshake(SecurityConfig.fromKafkaConfigs(configs))) {
            assertThat(peerSubject(tls)).isEqualTo("CN=localhost");
        }
        assertThat(clientSeenByServer.get(10, TimeUnit.SECONDS)).isEqualTo("CN=fastleader client");
    }

    @Test
    void refusesABrokerSignedByACaThePemTruststoreDoesNotHold() {
        Map<String, Object> configs = Map.of(
            "security.protocol", "SSL",
            "ssl.truststore.type", "PEM",
            "ssl.truststore.certificates", Pem.OTHER_CA);

        assertThatThrownBy(() -> handshake(SecurityConfig.fromKafkaConfigs(configs)))
            .isInstanceOf(SSLHandshakeException.class);
    }

    private SSLSocket handshake(SecurityConfig security) throws Exception {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
        try {
            return TlsSockets.wrap(socket, "localhost", server.getLocalPort(), security, 10_000);
        } catch (Exception e) {
            socket.close();
            throw e;
        }
    }

    /** Accepts one connection and names the certificate its client presented, or why there was none. */
    private String acceptOne() {
        try (SSLSocket accepted = (SSLSocket) server.accept()) {
            accepted.startHandshake();
            return peerSubject(accepted);
        } catch (Exception e) {
            return "no client certificate: " + e;
        }
    }

    private static String peerSubject(SSLSocket socket) throws Exception {
        return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }
}
