package io.fastleader.spring.boot;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;

/**
 * Auto-configuration that makes the {@code KafkaTemplate} and the listener containers Spring Boot
 * auto-configures run on fastleader: the producer and consumer factories Boot's Kafka
 * auto-configuration builds (from {@code spring.kafka.*}, {@code KafkaConnectionDetails} and the
 * application's {@code DefaultKafkaProducerFactoryCustomizer}s and
 * {@code DefaultKafkaConsumerFactoryCustomizer}s) are replaced by a {@link FastLeaderProducerFactory}
 * and a {@link FastLeaderConsumerFactory} built from the same configuration, customized by the same
 * customizers.
 *
 * <p>Factories the application declares itself are left as they are, as Boot leaves them. The
 * property {@value #ENABLED_PROPERTY}{@code =false} turns the starter off: Boot's factories, and
 * kafka-clients' {@code KafkaProducer} and {@code KafkaConsumer}, stay.
 *
 * <p>It compiles against no Boot Kafka class: it recognises Boot's factories by the
 * auto-configuration class that declared them, by name, so one starter serves Spring Boot 3.5
 * ({@code org.springframework.boot.autoconfigure.kafka}) and 4.0 ({@code org.springframework.boot.kafka.autoconfigure}).
 */
@AutoConfiguration
@ConditionalOnClass({DefaultKafkaProducerFactory.class, DefaultKafkaConsumerFactory.class})
@ConditionalOnProperty(name = FastLeaderKafkaAutoConfiguration.ENABLED_PROPERTY, havingValue = "true", matchIfMissing = true)
public final class FastLeaderKafkaAutoConfiguration {

    /** The property that turns the starter off when {@code false} (default {@code true}). */
    public static final String ENABLED_PROPERTY = "fastleader.enabled";

    /**
     * The post-processor that swaps Boot's factories. Static, as bean post-processors are: it is
     * created before any other bean, without this configuration class.
     *
     * @return the post-processor
     */
    @Bean
    static BootKafkaFactoriesReplacer fastLeaderBootKafkaFactoriesReplacer() {
        return new BootKafkaFactoriesReplacer();
    }
}
