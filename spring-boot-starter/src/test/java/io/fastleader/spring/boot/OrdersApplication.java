package io.fastleader.spring.boot;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.TopicBuilder;

/**
 * The application the tests boot: what an application with Spring Boot's Kafka support has, a
 * {@code KafkaTemplate} and a {@code @KafkaListener}, all auto-configured, plus the starter on its
 * classpath. Its topic ({@code orders.topic}) is created at startup by Boot's {@code KafkaAdmin}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class OrdersApplication {

    /** The listener's id in the {@code KafkaListenerEndpointRegistry}. */
    static final String LISTENER_ID = "order-listener";

    /** The records the listener received, in order. */
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();

    @KafkaListener(id = LISTENER_ID, topics = "${orders.topic}", groupId = "${orders.topic}-readers")
    void receive(String order) {
        received.add(order);
    }

    @Bean
    NewTopic ordersTopic(@Value("${orders.topic}") String topic) {
        return TopicBuilder.name(topic).partitions(1).replicas(1).build();
    }

    BlockingQueue<String> received() {
        return received;
    }

    /**
     * Boots the application with {@code properties} ({@code key=value}) added to the ones every test
     * needs: its topic, and records read from the start of it.
     */
    static ConfigurableApplicationContext run(String topic, String... properties) {
        return builder(topic, properties).run();
    }

    /** The application, not started yet, for a test that adds to it. */
    static SpringApplicationBuilder builder(String topic, String... properties) {
        return new SpringApplicationBuilder(OrdersApplication.class)
            .web(WebApplicationType.NONE)
            .properties("orders.topic=" + topic, "spring.kafka.consumer.auto-offset-reset=earliest")
            .properties(properties);
    }
}
