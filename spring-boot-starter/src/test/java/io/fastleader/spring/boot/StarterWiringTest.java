package io.fastleader.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.util.ClassUtils;

/**
 * Which factories {@link OrdersApplication} ends up with, and how they are configured: nothing here
 * connects to a broker (listeners do not start, no topic is created, no producer is built).
 */
class StarterWiringTest {

    /** Nothing listens there: the tests below must not need a broker. */
    private static final String[] NO_BROKER = {
        "spring.kafka.bootstrap-servers=localhost:1", "spring.kafka.listener.auto-startup=false", "spring.kafka.admin.auto-create=false"};

    @Test
    void testTheApplicationsOwnProducerAndConsumerFactoriesAreLeftAsTheyAre() {
        try (ConfigurableApplicationContext application = OrdersApplication.builder("own-factories", NO_BROKER)
                .sources(OwnFactories.class).run()) {
            OwnFactories own = application.getBean(OwnFactories.class);
            assertThat(application.getBean(ProducerFactory.class)).isSameAs(own.producerFactory);
            assertThat(application.getBean(ConsumerFactory.class)).isSameAs(own.consumerFactory);
            assertThat(application.getBean(KafkaTemplate.class).getProducerFactory()).isSameAs(own.producerFactory);
            assertThat(own.producerFactory.getClass()).isEqualTo(DefaultKafkaProducerFactory.class);
            assertThat(own.consumerFactory.getClass()).isEqualTo(DefaultKafkaConsumerFactory.class);
        }
    }

    @Test
    void testBootsFactoryCustomizersCustomizeFastLeadersFactories() {
        Object producerCustomizer = bootCustomizer("DefaultKafkaProducerFactoryCustomizer",
            factory -> ((DefaultKafkaProducerFactory<?, ?>) factory).setPhysicalCloseTimeout(7));
        Object consumerCustomizer = bootCustomizer("DefaultKafkaConsumerFactoryCustomizer",
            factory -> ((DefaultKafkaConsumerFactory<?, ?>) factory).updateConfigs(Map.of(ConsumerConfig.CLIENT_ID_CONFIG, "customized-reader")));
        try (ConfigurableApplicationContext application = OrdersApplication.builder("customized", NO_BROKER)
                .initializers(context -> {
                    context.getBeanFactory().registerSingleton("producerCustomizer", producerCustomizer);
                    context.getBeanFactory().registerSingleton("consumerCustomizer", consumerCustomizer);
                })
                .run()) {
            ProducerFactory<?, ?> producers = application.getBean(ProducerFactory.class);
            assertThat(producers).isInstanceOf(FastLeaderProducerFactory.class);
            assertThat(producers.getPhysicalCloseTimeout()).isEqualTo(Duration.ofSeconds(7));
            ConsumerFactory<?, ?> consumers = application.getBean(ConsumerFactory.class);
            assertThat(consumers).isInstanceOf(FastLeaderConsumerFactory.class);
            assertThat(consumers.getConfigurationProperties()).containsEntry(ConsumerConfig.CLIENT_ID_CONFIG, "customized-reader");
        }
    }

    @Test
    void testConsumerFactoryListenersHearOfEachFastLeaderConsumerCreatedAndClosed() {
        List<String> heard = new CopyOnWriteArrayList<>();
        ConsumerFactory.Listener<Object, Object> listener = new ConsumerFactory.Listener<>() {
            @Override
            public void consumerAdded(String id, Consumer<Object, Object> consumer) {
                heard.add("added " + id + groups(consumer));
            }

            @Override
            public void consumerRemoved(String id, Consumer<Object, Object> consumer) {
                heard.add("removed " + id);
            }
        };
        // As Boot's Kafka metrics auto-configuration adds its Micrometer listener.
        Object addsListener = bootCustomizer("DefaultKafkaConsumerFactoryCustomizer", factory -> {
            @SuppressWarnings("unchecked")
            DefaultKafkaConsumerFactory<Object, Object> consumers = (DefaultKafkaConsumerFactory<Object, Object>) factory;
            consumers.addListener(listener);
        });
        try (ConfigurableApplicationContext application = OrdersApplication.builder("listened", NO_BROKER)
                .properties("spring.kafka.consumer.client-id=listened-reader")
                .initializers(context -> context.getBeanFactory().registerSingleton("addsListener", addsListener))
                .run()) {
            ConsumerFactory<?, ?> consumers = application.getBean(ConsumerFactory.class);
            consumers.createConsumer().close();

            assertThat(heard).containsExactly("added kafkaConsumerFactory.listened-reader" + Set.of("fastleader-metadata"),
                "removed kafkaConsumerFactory.listened-reader");
        }
    }

    /** The fastleader metric group, if the consumer's metrics hold it. */
    private static Set<String> groups(Consumer<?, ?> consumer) {
        return consumer.metrics().keySet().stream().map(MetricName::group).filter("fastleader-metadata"::equals).collect(Collectors.toSet());
    }

    @Test
    void testATemplateWithConfigurationOverridesOfTheAutoConfiguredFactoryStaysOnFastLeader() {
        try (ConfigurableApplicationContext application = OrdersApplication.run("overrides", NO_BROKER)) {
            @SuppressWarnings("unchecked")
            ProducerFactory<Object, Object> producers = application.getBean(ProducerFactory.class);
            KafkaTemplate<Object, Object> template = new KafkaTemplate<>(producers, Map.of(ProducerConfig.LINGER_MS_CONFIG, 50));

            assertThat(template.getProducerFactory()).isNotSameAs(producers).isInstanceOf(FastLeaderProducerFactory.class);
            assertThat(template.getProducerFactory().getConfigurationProperties()).containsEntry(ProducerConfig.LINGER_MS_CONFIG, 50)
                .containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
        }
    }

    /**
     * One of Boot's customizer beans, of the interface {@code simpleName} in whichever package this
     * Boot release has it (Boot 4.0 moved it), calling {@code customize} with the factory.
     */
    private static Object bootCustomizer(String simpleName, java.util.function.Consumer<Object> customize) {
        ClassLoader loader = StarterWiringTest.class.getClassLoader();
        Class<?> type = Stream.of("org.springframework.boot.kafka.autoconfigure.", "org.springframework.boot.autoconfigure.kafka.")
            .map(bootPackage -> bootPackage + simpleName)
            .filter(name -> ClassUtils.isPresent(name, loader))
            .findFirst()
            .map(name -> ClassUtils.resolveClassName(name, loader))
            .orElseThrow(() -> new AssertionError("no " + simpleName + " in this Spring Boot"));
        return Proxy.newProxyInstance(loader, new Class<?>[] {type}, (proxy, method, args) -> switch (method.getName()) {
            case "customize" -> {
                customize.accept(args[0]);
                yield null;
            }
            case "hashCode" -> System.identityHashCode(proxy);
            case "equals" -> proxy == args[0];
            case "toString" -> simpleName + " of the test";
            default -> throw new UnsupportedOperationException(method.toString());
        });
    }

    /** An application's own factories, which Boot and the starter leave alone. */
    @Configuration(proxyBeanMethods = false)
    static class OwnFactories {

        final DefaultKafkaProducerFactory<Object, Object> producerFactory = new DefaultKafkaProducerFactory<>(configs());
        final DefaultKafkaConsumerFactory<Object, Object> consumerFactory = new DefaultKafkaConsumerFactory<>(configs());

        @Bean
        ProducerFactory<Object, Object> ownProducerFactory() {
            return producerFactory;
        }

        @Bean
        ConsumerFactory<Object, Object> ownConsumerFactory() {
            return consumerFactory;
        }

        private static Map<String, Object> configs() {
            Map<String, Object> configs = new HashMap<>();
            configs.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:1");
            return configs;
        }
    }
}
