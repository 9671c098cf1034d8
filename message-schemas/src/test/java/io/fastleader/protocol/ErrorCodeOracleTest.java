package io.fastleader.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.EnumSource.Mode.EXCLUDE;

import java.util.stream.Stream;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidMetadataException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * kafka-clients' own {@link Errors} is the oracle: with the release {@link ErrorCode} was generated from on the
 * classpath, every error must have the same code, message, exception class and retriability, and raise the same
 * exception.
 */
class ErrorCodeOracleTest {

    @Test
    void testHasExactlyTheErrorsOfKafkaClients() {
        assertThat(Stream.of(ErrorCode.values()).map(ErrorCode::name))
                .containsExactlyElementsOf(Stream.of(Errors.values()).map(Errors::name).toList());
    }

    @ParameterizedTest
    @EnumSource(Errors.class)
    void testHasTheSameCode(Errors kafkas) {
        assertThat(ErrorCode.valueOf(kafkas.name()).code()).isEqualTo(kafkas.code());
    }

    @ParameterizedTest
    @EnumSource(Errors.class)
    void testFindsTheSameErrorForTheCode(Errors kafkas) {
        assertThat(ErrorCode.forCode(kafkas.code()).name()).isEqualTo(Errors.forCode(kafkas.code()).name());
    }

    @ParameterizedTest
    @EnumSource(Errors.class)
    void testHasTheSameMessage(Errors kafkas) {
        assertThat(ErrorCode.valueOf(kafkas.name()).message()).isEqualTo(kafkas.message());
    }

    @ParameterizedTest
    @EnumSource(value = Errors.class, mode = EXCLUDE, names = "NONE")
    void testNamesTheSameExceptionClass(Errors kafkas) {
        assertThat(ErrorCode.valueOf(kafkas.name()).exceptionClassNames().get(0)).isEqualTo(kafkas.exceptionName());
    }

    @ParameterizedTest
    @EnumSource(Errors.class)
    void testIsRetriableExactlyWhenTheExceptionIsARetriableException(Errors kafkas) {
        assertThat(ErrorCode.valueOf(kafkas.name()).isRetriable()).isEqualTo(kafkas.exception() instanceof RetriableException);
    }

    @ParameterizedTest
    @EnumSource(value = Errors.class, mode = EXCLUDE, names = "NONE")
    void testTheExceptionIsEveryKafkaExceptionItsKafkaClientsExceptionIs(Errors kafkas) {
        ErrorCode error = ErrorCode.valueOf(kafkas.name());
        for (Class<?> type = kafkas.exception().getClass(); type != RuntimeException.class; type = type.getSuperclass()) {
            assertThat(error.exceptionIs(type.asSubclass(KafkaException.class))).as("%s is a %s", error, type.getName()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Errors.class)
    void testTheExceptionIsAnInvalidMetadataExceptionExactlyWhenKafkaClientsIs(Errors kafkas) {
        assertThat(ErrorCode.valueOf(kafkas.name()).exceptionIs(InvalidMetadataException.class))
                .isEqualTo(kafkas.exception() instanceof InvalidMetadataException);
    }

    @ParameterizedTest
    @EnumSource(value = Errors.class, mode = EXCLUDE, names = "NONE")
    void testRaisesTheSameExceptionWithTheGivenMessage(Errors kafkas) {
        ApiException exception = ErrorCode.valueOf(kafkas.name()).exception("the broker's words");

        assertThat(exception).isExactlyInstanceOf(kafkas.exception().getClass()).hasMessage("the broker's words");
    }

    @ParameterizedTest
    @EnumSource(value = Errors.class, mode = EXCLUDE, names = "NONE")
    void testRaisesTheSameExceptionWithTheDefaultMessage(Errors kafkas) {
        ApiException exception = ErrorCode.valueOf(kafkas.name()).exception();

        assertThat(exception).isExactlyInstanceOf(kafkas.exception().getClass()).hasMessage(kafkas.exception().getMessage());
    }
}
