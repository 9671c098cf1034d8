package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Provider;
import java.security.Security;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import org.apache.kafka.common.security.auth.SecurityProviderCreator;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** TLS handshakes with a local server that demands a client certificate signed by the test CA. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class TlsEnginesTest {

    private final SSLServerSocket server;
    private final CompletableFuture<String> clientSeenByServer;

    TlsEnginesTest() throws Exception {
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
            "ssl.keystore.key", Pem.CLIENT_KEY);

        assertThat(peerSubject(handshake(SecurityConfig.fromKafkaConfigs(configs)))).isEqualTo("CN=localhost");
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

        assertThat(peerSubject(handshake(SecurityConfig.fromKafkaConfigs(configs)))).isEqualTo("CN=localhost");
        assertThat(clientSeenByServer.get(10, TimeUnit.SECONDS)).isEqualTo("CN=fastleader client");
    }

    @Test
    void refusesABrokerSignedByACaThePemTruststoreDoesNotHold() {
        Map<String, Object> configs = Map.of(
            "security.protocol", "SSL",
            "ssl.truststore.type", "PEM",
            "ssl.truststore.certificates", Pem.OTHER_CA);

        assertThatThrownBy(() -> handshake(SecurityConfig.fromKafkaConfigs(configs)))
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void theApplicationsSslEngineFactoryMakesTheEnginesWithTheSslKeysAsKafkaParsesThem() throws Exception {
        Map<String, Object> configs = Map.of(
            "security.protocol", "SSL",
            "ssl.engine.factory.class", CountingEngineFactory.class.getName(),
            "ssl.truststore.type", "PEM",
            "ssl.truststore.certificates", Pem.CA,
            "ssl.keystore.type", "PEM",
            "ssl.keystore.certificate.chain", Pem.CLIENT_CERTIFICATE + Pem.CA,
            "ssl.keystore.key", Pem.CLIENT_KEY);
        int before = CountingEngineFactory.ENGINES.get();

        assertThat(peerSubject(handshake(SecurityConfig.fromKafkaConfigs(configs)))).isEqualTo("CN=localhost");
        assertThat(CountingEngineFactory.ENGINES.get() - before).as("engines the application's factory made").isEqualTo(1);
        assertThat(CountingEngineFactory.configuredProtocols).as("ssl.enabled.protocols, parsed and defaulted")
            .isInstanceOf(List.class).asList().isNotEmpty();
    }

    /** An application's {@code ssl.engine.factory.class}: Kafka's default one, counting the engines it makes. */
    @Test
    void theSecurityProvidersNamedAreInstalledAsKafkaInstallsThemForTls() {
        Map<String, Object> configs = Map.of(
            "security.protocol", "SSL",
            "security.providers", TestProviderCreator.class.getName(),
            "ssl.truststore.type", "PEM",
            "ssl.truststore.certificates", Pem.CA);
        Security.removeProvider(TestProviderCreator.NAME);

        try (TlsEngines engines = TlsEngines.of(SecurityConfig.fromKafkaConfigs(configs))) {
            assertThat(Security.getProviders()[0].getName()).as("the first provider").isEqualTo(TestProviderCreator.NAME);
        } finally {
            Security.removeProvider(TestProviderCreator.NAME);
        }
    }

    /** A {@code security.providers} creator whose provider offers nothing: its place in the list is what is checked. */
    public static final class TestProviderCreator implements SecurityProviderCreator {
        static final String NAME = "fastleader-test-provider";

        @Override
        public Provider getProvider() {
            return new Provider(NAME, "1.0", "offers nothing") {
            };
        }
    }

    public static final class CountingEngineFactory extends DefaultSslEngineFactory {
        static final AtomicInteger ENGINES = new AtomicInteger();
        static volatile Object configuredProtocols;

        @Override
        public void configure(Map<String, ?> configs) {
            configuredProtocols = configs.get("ssl.enabled.protocols");
            super.configure(configs);
        }

        @Override
        public SSLEngine createClientSslEngine(String peerHost, int peerPort, String endpointIdentification) {
            ENGINES.incrementAndGet();
            return super.createClientSslEngine(peerHost, peerPort, endpointIdentification);
        }
    }

    /** Handshakes over Netty with an engine of the {@link TlsEngines} {@code security} configures, and returns its session. */
    private SSLSession handshake(SecurityConfig security) throws Exception {
        try (TlsEngines engines = TlsEngines.of(security); IoLoop loop = IoLoop.start("tls-test-")) {
            SslHandler tls = new SslHandler(engines.engine("localhost", server.getLocalPort()));
            Channel channel = new Bootstrap().group(loop.eventLoop()).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel socket) {
                        socket.pipeline().addLast(tls);
                    }
                })
                .connect(InetAddress.getLoopbackAddress(), server.getLocalPort()).sync().channel();
            try {
                tls.handshakeFuture().get(10, TimeUnit.SECONDS);
                return tls.engine().getSession();
            } finally {
                channel.close().sync();
            }
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
        return peerSubject(socket.getSession());
    }

    private static String peerSubject(SSLSession session) throws Exception {
        return ((X509Certificate) session.getPeerCertificates()[0]).getSubjectX500Principal().getName();
    }
}
