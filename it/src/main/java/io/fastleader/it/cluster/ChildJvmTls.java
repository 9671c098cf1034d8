package io.fastleader.it.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SslConfigs;

/**
 * The key and trust stores of a child-JVM cluster with a TLS client listener: one self-signed
 * certificate for {@code 127.0.0.1}, where every node listens, made with the JDK's {@code keytool}
 * in the cluster's directory. The brokers present it and trust it (replication goes over the same
 * listener); clients trust it through {@link #clientConfig()}.
 */
final class ChildJvmTls {

    private static final String PASSWORD = "fastleader-test-store";
    private static final String STORE_TYPE = "PKCS12";
    private static final long KEYTOOL_TIMEOUT_SECONDS = 60;

    private final Path keystore;
    private final Path truststore;

    private ChildJvmTls(Path keystore, Path truststore) {
        this.keystore = keystore;
        this.truststore = truststore;
    }

    /** Makes the certificate and both stores in {@code dir}. */
    static ChildJvmTls create(Path dir, String host) {
        Path keystore = dir.resolve("broker-keystore.p12");
        Path certificate = dir.resolve("broker-certificate.pem");
        Path truststore = dir.resolve("truststore.p12");
        keytool("-genkeypair", "-alias", "broker", "-keyalg", "RSA", "-keysize", "2048", "-validity", "7",
            "-dname", "CN=" + host, "-ext", "SAN=ip:" + host + ",dns:localhost",
            "-keystore", keystore.toString(), "-storetype", STORE_TYPE, "-storepass", PASSWORD, "-keypass", PASSWORD);
        keytool("-exportcert", "-rfc", "-alias", "broker", "-keystore", keystore.toString(), "-storepass", PASSWORD,
            "-file", certificate.toString());
        keytool("-importcert", "-noprompt", "-alias", "broker", "-file", certificate.toString(),
            "-keystore", truststore.toString(), "-storetype", STORE_TYPE, "-storepass", PASSWORD);
        return new ChildJvmTls(keystore, truststore);
    }

    /** What a broker needs to serve TLS with the certificate and to trust it as a client of its peers. */
    Map<String, String> brokerConfig() {
        return Map.of(
            SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, keystore.toString(),
            SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, PASSWORD,
            SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, STORE_TYPE,
            SslConfigs.SSL_KEY_PASSWORD_CONFIG, PASSWORD,
            SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, truststore.toString(),
            SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, PASSWORD,
            SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, STORE_TYPE);
    }

    /** What a client needs to reach the cluster over TLS, trusting its certificate. */
    Map<String, Object> clientConfig() {
        return Map.of(
            CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL",
            SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, truststore.toString(),
            SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, PASSWORD,
            SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, STORE_TYPE);
    }

    private static void keytool(String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(arguments));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output;
            try (var out = process.getInputStream()) {
                output = new String(out.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!process.waitFor(KEYTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool " + arguments[0] + " did not end within " + KEYTOOL_TIMEOUT_SECONDS + " s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("keytool " + arguments[0] + " failed (exit " + process.exitValue() + "): " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run keytool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running keytool", e);
        }
    }
}
