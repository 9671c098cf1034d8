package io.fastleader.it.parity;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.config.SaslConfigs;
import org.jose4j.jwk.JsonWebKey;
import org.jose4j.jwk.RsaJsonWebKey;
import org.jose4j.jwk.RsaJwkGenerator;
import org.jose4j.jws.AlgorithmIdentifiers;
import org.jose4j.jws.JsonWebSignature;
import org.jose4j.jwt.JwtClaims;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.cluster.Security;

/**
 * OAUTHBEARER with OIDC client credentials (KIP-768), configured as kafka-clients documents it,
 * through {@code KafkaProducer}/{@code KafkaConsumer} and fastleader's clients alike: the test
 * serves a token endpoint and the key set that signs its tokens on loopback, the broker validates
 * every token against that key set, and the clients' login fetches a token with its client id and
 * secret. Both must produce and read back.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class OidcParityTest {

    private static final String CLIENT_ID = "orders-app";
    private static final String CLIENT_SECRET = "orders-secret";
    private static final String TOPIC = "oidc";
    /** kafka-clients 4 calls only the token and key set URLs this system property allows. */
    private static final String ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

    private static RsaJsonWebKey signingKey;
    private static HttpServer identityProvider;
    private static final AtomicInteger TOKENS_ISSUED = new AtomicInteger();
    private static KafkaTestCluster cluster;

    @BeforeAll
    static void startIdentityProviderAndCluster() throws Exception {
        signingKey = RsaJwkGenerator.generateJwk(2048);
        signingKey.setKeyId("test-key");
        signingKey.setAlgorithm(AlgorithmIdentifiers.RSA_USING_SHA256);
        identityProvider = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        identityProvider.createContext("/token", OidcParityTest::issueToken);
        identityProvider.createContext("/jwks", exchange -> respond(exchange, 200,
            "{\"keys\":[" + signingKey.toJson(JsonWebKey.OutputControlLevel.PUBLIC_ONLY) + "]}"));
        identityProvider.start();
        System.setProperty(ALLOWED_URLS, url("/token") + "," + url("/jwks"));
        // Every client of the cluster, its own admin included, logs in with client credentials: the broker takes no other token.
        Security oidc = Security.saslPlaintext(Security.OAUTHBEARER, CLIENT_ID, "unused")
            .withClientConfig(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler")
            .withClientConfig(SaslConfigs.SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, url("/token"))
            .withClientConfig(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                + "clientId=\"" + CLIENT_ID + "\" clientSecret=\"" + CLIENT_SECRET + "\";");
        cluster = ClusterSpec.builder().brokers(1).execution(Execution.IN_JVM)
            .security(oidc)
            .brokerConfig("listener.name.external.oauthbearer.sasl.server.callback.handler.class",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler")
            .brokerConfig("sasl.oauthbearer.jwks.endpoint.url", url("/jwks"))
            .start();
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
        if (identityProvider != null) {
            identityProvider.stop(0);
        }
        System.clearProperty(ALLOWED_URLS);
    }

    @Test
    void clientCredentialsFromATokenEndpointProduceAndConsumeAsKafkaClientsDo() throws Exception {
        AuthenticationParityTest.assertEachReadsWhatBothWrote(cluster, cluster.clientConfig(), TOPIC);

        // Clients of one JAAS configuration share its login, and so its token, as kafka-clients' share it.
        assertThat(TOKENS_ISSUED.get()).as("tokens the clients' logins fetched").isPositive();
    }

    /** The client credentials grant: a signed token for the client whose id and secret the Basic header carries. */
    private static void issueToken(HttpExchange exchange) throws IOException {
        String expected = "Basic " + Base64.getEncoder().encodeToString((CLIENT_ID + ":" + CLIENT_SECRET).getBytes(StandardCharsets.UTF_8));
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        if (!expected.equals(exchange.getRequestHeaders().getFirst("Authorization")) || !body.contains("grant_type=client_credentials")) {
            respond(exchange, 401, "{\"error\":\"invalid_client\"}");
            return;
        }
        JwtClaims claims = new JwtClaims();
        claims.setSubject(CLIENT_ID);
        claims.setIssuedAtToNow();
        claims.setExpirationTimeMinutesInTheFuture(60);
        claims.setClaim("scope", "kafka");
        JsonWebSignature signature = new JsonWebSignature();
        signature.setPayload(claims.toJson());
        signature.setKey(signingKey.getPrivateKey());
        signature.setKeyIdHeaderValue(signingKey.getKeyId());
        signature.setAlgorithmHeaderValue(AlgorithmIdentifiers.RSA_USING_SHA256);
        String token;
        try {
            token = signature.getCompactSerialization();
        } catch (org.jose4j.lang.JoseException e) {
            throw new IOException(e);
        }
        TOKENS_ISSUED.incrementAndGet();
        respond(exchange, 200, "{\"access_token\":\"" + token + "\",\"token_type\":\"Bearer\",\"expires_in\":3600}");
    }

    private static void respond(HttpExchange exchange, int status, String json) throws IOException {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static String url(String path) {
        return "http://127.0.0.1:" + identityProvider.getAddress().getPort() + path;
    }
}
