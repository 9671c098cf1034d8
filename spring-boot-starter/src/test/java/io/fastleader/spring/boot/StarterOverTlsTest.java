package io.fastleader.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.fastleader.it.cluster.Cluster;
import io.fastleader.it.cluster.KafkaClusterExtension;
import io.fastleader.it.cluster.KafkaTestCluster;
import org.apache.kafka.common.config.SslConfigs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * {@link OrdersApplication} against a real broker whose only client listener is TLS, with a
 * certificate nothing trusts but the application's SSL bundle: the bundle reaches fastleader's
 * clients as Boot hands it to any Kafka client, through {@code ssl.engine.factory.class}.
 */
@ExtendWith(KafkaClusterExtension.class)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class StarterOverTlsTest {

    @Test
    void testAnSslBundleCarriesTheTemplateAndTheListenerOverTlsOnFastLeader(
        @Cluster(brokers = 1, securityProtocol = "SSL") KafkaTestCluster cluster) throws Exception {
        Map<String, Object> client = cluster.clientConfig();
        try (ConfigurableApplicationContext application = OrdersApplication.run("tls-orders",
                "spring.kafka.bootstrap-servers=" + cluster.bootstrapServers(),
                "spring.kafka.security.protocol=SSL",
                "spring.kafka.ssl.bundle=broker-trust",
                "spring.ssl.bundle.jks.broker-trust.truststore.location=file:" + client.get(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG),
                "spring.ssl.bundle.jks.broker-trust.truststore.password=" + client.get(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG),
                "spring.ssl.bundle.jks.broker-trust.truststore.type=" + client.get(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG))) {
            @SuppressWarnings("unchecked")
            KafkaTemplate<String, String> template = application.getBean(KafkaTemplate.class);
            assertThat(template.getProducerFactory()).isInstanceOf(FastLeaderProducerFactory.class);
            assertThat(template.getProducerFactory().getConfigurationProperties())
                .as("what Boot hands the clients for the bundle").containsKey(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG)
                .doesNotContainKey(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG);

            template.send("tls-orders", "order-1").get(30, TimeUnit.SECONDS);

            assertThat(application.getBean(OrdersApplication.class).received().poll(60, TimeUnit.SECONDS))
                .as("the record the template sent over TLS, as the listener received it over TLS").isEqualTo("order-1");
            assertThat(application.getBean(FastLeaderConsumerFactory.class)).isNotNull();
        }
    }
}
