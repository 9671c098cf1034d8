package io.fastleader.protocol;

import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidMetadataException;
import org.apache.kafka.common.errors.RetriableException;

/**
 * Builds each {@link ErrorCode}'s exception from the application's own kafka-clients classes, looked
 * up by name, so that what the application catches is what {@code KafkaProducer} and
 * {@code KafkaConsumer} would have thrown with its release.
 *
 * <p>An error's exception class may be newer than the application's release (3.7 has no
 * {@code ShareSessionNotFoundException}, for one). Then the error is raised as the nearest
 * superclass the release has, along the chain {@link ErrorCode#exceptionClassNames()} gives, ending at
 * {@link ApiException}, which every release has. A class on the chain that cannot be built with a
 * message (it is abstract, or has no public {@code (String)} constructor) is passed over, except
 * that an abstract {@link RetriableException} or {@link InvalidMetadataException} is built as a
 * stand-in subclass of its own, so the application still sees the error as retriable, or as a
 * reason to refresh its metadata.
 *
 * <p>Each error is resolved once, on first use, and the result kept in a lock-free table: threads
 * that race to resolve the same error compute the same answer.
 */
final class ErrorExceptions {

    /** The application's exceptions: classes are loaded by the class loader that loaded {@link ApiException}. */
    static final ErrorExceptions APPLICATION = new ErrorExceptions(ErrorExceptions::loadBesideApiException);

    /** Stand-ins for abstract classes on the chain; each stands in for the abstract class it extends. */
    private static final Map<String, Function<String, ApiException>> STAND_INS = Map.of(
            RetriableException.class.getName(), RetriableStandIn::new,
            InvalidMetadataException.class.getName(), InvalidMetadataStandIn::new);

    private final Function<String, Class<?>> classLookup;
    private final AtomicReferenceArray<Function<String, ApiException>> factories =
            new AtomicReferenceArray<>(ErrorCode.values().length);

    /**
     * @param classLookup the application's class of a name, null if its release has none; a test
     *                    simulates an older release with it
     */
    ErrorExceptions(Function<String, Class<?>> classLookup) {
        this.classLookup = classLookup;
    }

    /** The application's exception for {@code error}, with {@code message}; null for {@link ErrorCode#NONE}. */
    ApiException create(ErrorCode error, String message) {
        Function<String, ApiException> factory = factories.get(error.ordinal());
        if (factory == null) {
            factory = resolve(error);
            factories.set(error.ordinal(), factory);
        }
        return factory.apply(message);
    }

    private Function<String, ApiException> resolve(ErrorCode error) {
        if (error == ErrorCode.NONE) {
            return message -> null;
        }
        for (String name : error.exceptionClassNames()) {
            Function<String, ApiException> factory = factory(name);
            if (factory != null) {
                return factory;
            }
        }
        // Every release has ApiException, the chain's last buildable class: only a simulated release gets here.
        return ApiException::new;
    }

    /** Builds the application's class of this name with a message; null if its release cannot. */
    private Function<String, ApiException> factory(String name) {
        Class<?> type = classLookup.apply(name);
        if (type == null || !ApiException.class.isAssignableFrom(type)) {
            return null;
        }
        if (Modifier.isAbstract(type.getModifiers())) {
            return STAND_INS.get(name);
        }
        Constructor<? extends ApiException> constructor = messageConstructor(type.asSubclass(ApiException.class));
        return constructor == null ? null : message -> instantiate(constructor, message);
    }

    private static Constructor<? extends ApiException> messageConstructor(Class<? extends ApiException> type) {
        try {
            return type.getConstructor(String.class);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    private static ApiException instantiate(Constructor<? extends ApiException> constructor, String message) {
        try {
            return constructor.newInstance(message);
        } catch (ReflectiveOperationException e) {
            throw new KafkaException("Building " + constructor.getDeclaringClass().getName() + " failed", e);
        }
    }

    private static Class<?> loadBesideApiException(String name) {
        try {
            return Class.forName(name, false, ApiException.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    /** A retriable error whose own exception class the application's kafka-clients release does not have. */
    static final class RetriableStandIn extends RetriableException {

        private static final long serialVersionUID = 1L;

        RetriableStandIn(String message) {
            super(message);
        }
    }

    /** A metadata error whose own exception class the application's kafka-clients release does not have. */
    static final class InvalidMetadataStandIn extends InvalidMetadataException {

        private static final long serialVersionUID = 1L;

        InvalidMetadataStandIn(String message) {
            super(message);
        }
    }
}
