package io.fastleader.it.parity;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kerby.kerberos.kerb.server.SimpleKdcServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.fastleader.it.cluster.ClusterSpec;
import io.fastleader.it.cluster.Execution;
import io.fastleader.it.cluster.KafkaTestCluster;
import io.fastleader.it.cluster.Security;

/**
 * Kerberos (GSSAPI), Kafka's default mechanism, configured as kafka-clients documents it, through
 * {@code KafkaProducer}/{@code KafkaConsumer} and fastleader's clients alike: a KDC (Apache Kerby)
 * runs in the test JVM on loopback, the broker logs in as {@code kafka/localhost} from a keytab,
 * the clients as {@code client} from theirs. Both must produce and read back.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class KerberosParityTest {

    private static final String REALM = "EXAMPLE.COM";
    private static final String TOPIC = "kerberos";
    private static final String KRB5_CONF = "java.security.krb5.conf";

    @TempDir
    static Path workDir;
    private static SimpleKdcServer kdc;
    private static KafkaTestCluster cluster;

    @BeforeAll
    static void startKdcAndCluster() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        kdc = new SimpleKdcServer();
        kdc.setWorkDir(workDir.toFile());
        kdc.setKdcRealm(REALM);
        kdc.setKdcHost("localhost");
        kdc.setAllowUdp(false);
        kdc.setAllowTcp(true);
        kdc.setKdcTcpPort(port);
        kdc.init();
        kdc.start();
        File brokerKeytab = workDir.resolve("broker.keytab").toFile();
        File clientKeytab = workDir.resolve("client.keytab").toFile();
        kdc.createAndExportPrincipals(brokerKeytab, "kafka/localhost");
        kdc.createAndExportPrincipals(clientKeytab, "client");
        Path krb5 = workDir.resolve("krb5.conf");
        Files.writeString(krb5, "[libdefaults]\n  default_realm = " + REALM + "\n  udp_preference_limit = 1\n"
            + "  dns_lookup_kdc = false\n  dns_lookup_realm = false\n"
            + "[realms]\n  " + REALM + " = {\n    kdc = localhost:" + port + "\n  }\n");
        System.setProperty(KRB5_CONF, krb5.toString());
        Security kerberos = Security.withBrokerLogin("GSSAPI", keytabLogin(brokerKeytab, "kafka/localhost@" + REALM))
            .withClientConfig(SaslConfigs.SASL_KERBEROS_SERVICE_NAME, "kafka")
            .withClientConfig(SaslConfigs.SASL_JAAS_CONFIG, keytabLogin(clientKeytab, "client@" + REALM));
        cluster = ClusterSpec.builder().brokers(1).execution(Execution.IN_JVM).security(kerberos)
            .brokerConfig("sasl.kerberos.service.name", "kafka")
            .start();
    }

    /** A Kerberos login from a keytab, as kafka-clients' documentation writes it. */
    private static String keytabLogin(File keytab, String principal) {
        return "com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true storeKey=true keyTab=\"" + keytab.getAbsolutePath()
            + "\" principal=\"" + principal + "\";";
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (kdc != null) {
            kdc.stop();
        }
        System.clearProperty(KRB5_CONF);
    }

    @Test
    void aKerberosLoginProducesAndConsumesAsKafkaClientsDoes() throws Exception {
        AuthenticationParityTest.assertEachReadsWhatBothWrote(cluster, cluster.clientConfig(), TOPIC);
    }
}
