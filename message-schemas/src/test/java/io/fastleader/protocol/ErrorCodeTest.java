package io.fastleader.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ErrorCodeTest {

    @Test
    void testAnUnknownCodeIsAnUnknownServerError() {
        assertThat(ErrorCode.forCode((short) 32000)).isEqualTo(ErrorCode.UNKNOWN_SERVER_ERROR);
        assertThat(ErrorCode.forCode((short) -2)).isEqualTo(ErrorCode.UNKNOWN_SERVER_ERROR);
    }

    @Test
    void testNoneHasNoException() {
        assertThat(ErrorCode.NONE.exception()).isNull();
        assertThat(ErrorCode.NONE.exception("a message")).isNull();
        assertThat(ErrorCode.NONE.exceptionClassNames()).isEmpty();
    }

    @Test
    void testNoneIsCodeZeroAndNotRetriable() {
        assertThat(ErrorCode.forCode((short) 0)).isEqualTo(ErrorCode.NONE);
        assertThat(ErrorCode.NONE.isRetriable()).isFalse();
    }

    @Test
    void testANullMessageGivesTheDefaultMessage() {
        assertThat(ErrorCode.NOT_LEADER_OR_FOLLOWER.exception(null)).hasMessage(ErrorCode.NOT_LEADER_OR_FOLLOWER.message());
    }

    @Test
    void testEveryCallRaisesAFreshException() {
        assertThat(ErrorCode.REQUEST_TIMED_OUT.exception()).isNotSameAs(ErrorCode.REQUEST_TIMED_OUT.exception());
    }
}
