package io.fastleader.spring.boot;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Replaces the {@link DefaultKafkaProducerFactory} and {@link DefaultKafkaConsumerFactory} beans
 * that Spring Boot's {@code KafkaAutoConfiguration} declared with fastleader's factories, rebuilt
 * as Boot built them: the configuration map of Boot's factory (from {@code spring.kafka.*} and
 * {@code KafkaConnectionDetails}), the producer's transaction id prefix, then Boot's customizer
 * beans in their order. The customizers so run twice, the first time on Boot's factory, which is
 * dropped before it built any client.
 *
 * <p>Replacing the finished bean, rather than declaring one in Boot's place, keeps every
 * {@code spring.kafka.*} rule Boot's own, including those private to its auto-configuration.
 * It runs before the application's post-processors, so they see fastleader's factory.
 */
final class BootKafkaFactoriesReplacer implements BeanPostProcessor, BeanFactoryAware, ApplicationContextAware, PriorityOrdered {

    /** Where Boot's Kafka auto-configuration lives: Boot 4.0 and later, then Boot 3.x. */
    private static final List<String> BOOT_PACKAGES = List.of(
        "org.springframework.boot.kafka.autoconfigure.", "org.springframework.boot.autoconfigure.kafka.");

    private ConfigurableListableBeanFactory beanFactory;
    private ApplicationContext applicationContext;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
    }

    @Override
    public void setApplicationContext(ApplicationContext applicationContext) {
        this.applicationContext = applicationContext;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
        if (bean.getClass() == DefaultKafkaProducerFactory.class && declaredByBoot(beanName)) {
            return fastLeaderProducerFactory((DefaultKafkaProducerFactory<?, ?>) bean, beanName);
        }
        if (bean.getClass() == DefaultKafkaConsumerFactory.class && declaredByBoot(beanName)) {
            return fastLeaderConsumerFactory((DefaultKafkaConsumerFactory<?, ?>) bean, beanName);
        }
        return bean;
    }

    private FastLeaderProducerFactory<Object, Object> fastLeaderProducerFactory(DefaultKafkaProducerFactory<?, ?> boots, String beanName) {
        Map<String, Object> configs = boots.getConfigurationProperties();
        FastLeaderProducerFactory<Object, Object> factory = new FastLeaderProducerFactory<>(configs);
        if (boots.getTransactionIdPrefix() != null) {
            factory.setTransactionIdPrefix(boots.getTransactionIdPrefix());
        }
        applyBootCustomizers("DefaultKafkaProducerFactoryCustomizer", DefaultKafkaProducerFactory.class, factory);
        // Boot's bean was told these before this post-processor ran; the replacement is not.
        factory.setBeanName(beanName);
        factory.setApplicationContext(applicationContext);
        return factory;
    }

    private FastLeaderConsumerFactory<Object, Object> fastLeaderConsumerFactory(DefaultKafkaConsumerFactory<?, ?> boots, String beanName) {
        Map<String, Object> configs = boots.getConfigurationProperties();
        FastLeaderConsumerFactory<Object, Object> factory = new FastLeaderConsumerFactory<>(configs);
        applyBootCustomizers("DefaultKafkaConsumerFactoryCustomizer", DefaultKafkaConsumerFactory.class, factory);
        factory.setBeanName(beanName);
        factory.setApplicationContext(applicationContext);
        return factory;
    }

    /** Whether Boot's Kafka auto-configuration declared the bean (an application's own factory is left alone). */
    private boolean declaredByBoot(String beanName) {
        if (!beanFactory.containsBeanDefinition(beanName)) {
            return false;
        }
        BeanDefinition definition = beanFactory.getMergedBeanDefinition(beanName);
        Method factoryMethod = definition instanceof RootBeanDefinition root ? root.getResolvedFactoryMethod() : null;
        return factoryMethod != null && inBootKafkaPackage(factoryMethod.getDeclaringClass().getName());
    }

    private static boolean inBootKafkaPackage(String className) {
        return BOOT_PACKAGES.stream().anyMatch(className::startsWith);
    }

    /**
     * Calls each bean of Boot's customizer interface {@code simpleName}, in Boot's order, on the
     * factory. The interface is looked up by name because its package depends on the Boot release.
     */
    private <F> void applyBootCustomizers(String simpleName, Class<?> factoryType, F factory) {
        customizerType(simpleName).ifPresent(type -> {
            Method customize = ReflectionUtils.findMethod(type, "customize", factoryType);
            if (customize == null) {
                throw new IllegalStateException(type.getName() + " has no customize(" + factoryType.getSimpleName() + ")");
            }
            Consumer<Object> apply = customizer -> ReflectionUtils.invokeMethod(customize, customizer, factory);
            beanFactory.getBeanProvider(type).orderedStream().forEach(apply);
        });
    }

    private Optional<Class<?>> customizerType(String simpleName) {
        ClassLoader loader = beanFactory.getBeanClassLoader();
        return BOOT_PACKAGES.stream()
            .map(bootPackage -> bootPackage + simpleName)
            .filter(name -> ClassUtils.isPresent(name, loader))
            .findFirst()
            .map(name -> ClassUtils.resolveClassName(name, loader));
    }
}
