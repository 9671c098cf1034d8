package io.fastleader.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.ApplicationRecoverableException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidMetadataException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RefreshRetriableException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.ShareSessionNotFoundException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.junit.jupiter.api.Test;

/** Builds exceptions for simulated kafka-clients releases that lack some of the classes the table names. */
class ErrorExceptionsTest {

    @Test
    void testBuildsTheApplicationsOwnExceptionClass() {
        assertThat(releaseWithout().create(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "not allowed"))
                .isExactlyInstanceOf(TopicAuthorizationException.class)
                .hasMessage("not allowed");
    }

    @Test
    void testBuildsTheNearestSuperclassWhenTheReleaseLacksTheExceptionClass() {
        assertThat(releaseWithout(TopicAuthorizationException.class).create(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "not allowed"))
                .isExactlyInstanceOf(AuthorizationException.class)
                .hasMessage("not allowed");
    }

    @Test
    void testBuildsARetriableExceptionWhenTheNearestSuperclassIsTheAbstractRetriableException() {
        // kafka-clients 3.7 has neither ShareSessionNotFoundException nor RefreshRetriableException.
        assertThat(releaseWithout(ShareSessionNotFoundException.class, RefreshRetriableException.class)
                .create(ErrorCode.SHARE_SESSION_NOT_FOUND, "no session"))
                .isInstanceOf(RetriableException.class)
                .hasMessage("no session");
    }

    @Test
    void testBuildsAnInvalidMetadataExceptionWhenTheNearestSuperclassIsTheAbstractInvalidMetadataException() {
        assertThat(releaseWithout(NotLeaderOrFollowerException.class).create(ErrorCode.NOT_LEADER_OR_FOLLOWER, "moved"))
                .isInstanceOf(InvalidMetadataException.class)
                .hasMessage("moved");
    }

    @Test
    void testPassesOverAnAbstractSuperclassItHasNoStandInFor() {
        assertThat(ProducerFencedException.class.getSuperclass()).isEqualTo(ApplicationRecoverableException.class);

        assertThat(releaseWithout(ProducerFencedException.class).create(ErrorCode.PRODUCER_FENCED, "fenced"))
                .isExactlyInstanceOf(ApiException.class)
                .hasMessage("fenced");
    }

    @Test
    void testPassesOverAClassWithoutAMessageConstructor() {
        ErrorExceptions release = new ErrorExceptions(name -> name.equals(UnknownServerException.class.getName())
                ? WithoutMessageConstructor.class : load(name));

        assertThat(release.create(ErrorCode.UNKNOWN_SERVER_ERROR, "oops")).isExactlyInstanceOf(ApiException.class).hasMessage("oops");
    }

    @Test
    void testLooksUpEachErrorsClassesOnce() {
        List<String> lookedUp = new ArrayList<>();
        ErrorExceptions release = new ErrorExceptions(name -> {
            lookedUp.add(name);
            return load(name);
        });

        release.create(ErrorCode.NOT_COORDINATOR, "first");
        release.create(ErrorCode.NOT_COORDINATOR, "second");

        assertThat(lookedUp).containsExactly(ErrorCode.NOT_COORDINATOR.exceptionClassNames().get(0));
    }

    private static ErrorExceptions releaseWithout(Class<?>... missing) {
        Set<String> names = Set.of(Stream.of(missing).map(Class::getName).toArray(String[]::new));
        return new ErrorExceptions(name -> names.contains(name) ? null : load(name));
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    /** A release's exception class that cannot be built with a message. */
    public static final class WithoutMessageConstructor extends ApiException {

        private static final long serialVersionUID = 1L;

        public WithoutMessageConstructor() {
            super("built without a message");
        }
    }
}
