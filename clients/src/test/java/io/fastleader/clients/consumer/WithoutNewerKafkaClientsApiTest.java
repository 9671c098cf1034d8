package io.fastleader.clients.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.fastleader.protocol.ApiKey;

/**
 * The consumer where public classes newer than kafka-clients 3.7 are missing: fastleader and
 * kafka-clients 4.3.1 in a class loader of their own that pretends those classes do not exist,
 * so a class of fastleader's that needs one fails to load or verify here.
 */
class WithoutNewerKafkaClientsApiTest {

    /** Public classes of kafka-clients 4.3.1 that 3.7 lacks, which fastleader's code mentions. */
    private static final Set<String> NEWER_THAN_3_7 = Set.of(
            "org.apache.kafka.clients.consumer.CloseOptions",
            "org.apache.kafka.clients.consumer.CloseOptions$GroupMembershipOperation",
            "org.apache.kafka.clients.consumer.SubscriptionPattern",
            "org.apache.kafka.common.errors.RecordDeserializationException$DeserializationExceptionOrigin");

    private final ClassLoader testLoader = Thread.currentThread().getContextClassLoader();
    private final URLClassLoader loader = new Without37sMissingClasses();

    @AfterEach
    void restoreContextLoader() throws IOException {
        Thread.currentThread().setContextClassLoader(testLoader);
        loader.close();
    }

    @Test
    void testTheHiddenClassesAreMissing() {
        assertThatThrownBy(() -> loader.loadClass("org.apache.kafka.clients.consumer.CloseOptions"))
                .isInstanceOf(ClassNotFoundException.class);
    }

    @Test
    void testAGroupConsumerIsBuiltAndClosedWithoutThem() throws Throwable {
        Object consumer = newConsumer();

        // A method handle resolves this one method; reflection would load every public method's parameter types.
        MethodHandles.publicLookup().findVirtual(consumer.getClass(), "close", MethodType.methodType(void.class)).invoke(consumer);
    }

    @Test
    void testAConsumerClosedWithATimeoutNeedsNoCloseOptions() throws Throwable {
        Object consumer = newConsumer();

        MethodHandles.publicLookup().findVirtual(consumer.getClass(), "close", MethodType.methodType(void.class, Duration.class))
                .invoke(consumer, Duration.ZERO);
    }

    @Test
    void testDeserializationErrorsFallBackToTheShortConstructor() throws Exception {
        Class<?> errors = Class.forName(DeserializationErrors.class.getName(), true, loader);

        // Package-private, but in another loader's package of the same name: reached by reflection.
        Field onClasspath = errors.getDeclaredField("ON_CLASSPATH");
        Field detailed = errors.getDeclaredField("detailed");
        onClasspath.setAccessible(true);
        detailed.setAccessible(true);

        assertThat(detailed.get(onClasspath.get(null))).isEqualTo(Optional.empty());
    }

    private Object newConsumer() throws Exception {
        Thread.currentThread().setContextClassLoader(loader);
        Map<String, Object> configs = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9",
                ConsumerConfig.GROUP_ID_CONFIG, "readers",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return loader.loadClass(FastLeaderConsumer.class.getName()).getConstructor(Map.class).newInstance(configs);
    }

    /** fastleader, its protocol classes and kafka-clients loaded here first, but for {@link #NEWER_THAN_3_7}. */
    private final class Without37sMissingClasses extends URLClassLoader {

        Without37sMissingClasses() {
            super(new URL[] {location(FastLeaderConsumer.class), location(ApiKey.class), location(ConsumerRecords.class)}, testLoader);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (NEWER_THAN_3_7.contains(name)) {
                throw new ClassNotFoundException(name + " is newer than kafka-clients 3.7");
            }
            if (!name.startsWith("io.fastleader.") && !name.startsWith("org.apache.kafka.")) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded == null) {
                    try {
                        loaded = findClass(name);
                    } catch (ClassNotFoundException notHere) {
                        return super.loadClass(name, resolve);
                    }
                }
                if (resolve) {
                    resolveClass(loaded);
                }
                return loaded;
            }
        }
    }

    private static URL location(Class<?> type) {
        return type.getProtectionDomain().getCodeSource().getLocation();
    }
}
