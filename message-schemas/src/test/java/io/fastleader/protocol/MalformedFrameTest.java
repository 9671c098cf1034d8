package io.fastleader.protocol;

import static io.fastleader.protocol.FramingTest.kafkaResponseFrame;
import static io.fastleader.protocol.FramingTest.sized;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;

import io.fastleader.protocol.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bytes no honest broker sends: each is refused with a clear error, before any large allocation. */
class MalformedFrameTest {

    private static final int MAX_FRAME = 100 * 1024 * 1024;
    private static final short V10 = 10;

    @ParameterizedTest
    @ValueSource(ints = {Integer.MIN_VALUE, -1, 0, 3})
    void refusesASizePrefixTooSmallForAResponse(int size) {
        assertThatThrownBy(() -> Framing.checkResponseSize(size, MAX_FRAME))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessage("invalid response size prefix " + size + ": a response frame holds at least 4 bytes");
    }

    @Test
    void refusesAHugeSizePrefixBeforeReadingTheFrame() {
        ByteBuffer prefixOnly = ByteBuffer.allocate(4).putInt(0, Integer.MAX_VALUE);

        assertThatThrownBy(() -> Framing.decodeSizedResponse(ApiKey.PRODUCE, V10, prefixOnly, MAX_FRAME))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessage("response size prefix 2147483647 exceeds the limit of 104857600 bytes");
    }

    @Test
    void refusesAFrameShorterThanItsSizePrefix() {
        ByteBuffer frame = sized(LeaderHintDecodingTest.hintedProduceResponse(V10));
        frame.limit(frame.limit() - 3);

        assertThatThrownBy(() -> Framing.decodeSizedResponse(ApiKey.PRODUCE, V10, frame, MAX_FRAME))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessageMatching("truncated frame: size prefix says \\d+ bytes, \\d+ follow");
    }

    @Test
    void refusesATruncatedSizePrefix() {
        assertThatThrownBy(() -> Framing.decodeSizedResponse(ApiKey.PRODUCE, V10, ByteBuffer.allocate(2), MAX_FRAME))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessage("truncated size prefix: 2 bytes");
    }

    @Test
    void refusesAFrameTooShortForACorrelationId() {
        assertThatThrownBy(() -> Framing.correlationId(ByteBuffer.allocate(3)))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessage("response frame of 3 bytes is too short to hold a correlation id");
    }

    @Test
    void refusesABodyCutShortNamingApiVersionAndCorrelationId() {
        ByteBuffer frame = LeaderHintDecodingTest.hintedProduceResponse(V10);
        frame.limit(frame.limit() - 5);

        assertThatThrownBy(() -> Framing.decodeResponse(ApiKey.PRODUCE, V10, frame))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessageStartingWith("malformed Produce v10 response (correlation id 11): ");
    }

    @Test
    void refusesBytesAfterTheBody() {
        ByteBuffer body = LeaderHintDecodingTest.hintedProduceResponse(V10);
        ByteBuffer frame = ByteBuffer.allocate(body.remaining() + 2).put(body).put((byte) 0).put((byte) 0).flip();

        assertThatThrownBy(() -> Framing.decodeResponse(ApiKey.PRODUCE, V10, frame))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessage("malformed Produce v10 response (correlation id 11): 2 bytes left after the body");
    }

    @Test
    void refusesAHugeArrayLengthWithoutAllocatingIt() {
        // Metadata v1 response: correlation id, then the brokers array's int32 length.
        ByteBuffer frame = ByteBuffer.allocate(8).putInt(21).putInt(Integer.MAX_VALUE).flip();

        assertThatThrownBy(() -> Framing.decodeResponse(ApiKey.METADATA, (short) 1, frame))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessageStartingWith("malformed Metadata v1 response (correlation id 21): ");
    }

    @Test
    void refusesAHugeCompactArrayLengthWithoutAllocatingIt() {
        // Metadata v12 response: correlation id, empty header tags, throttle time, then the
        // brokers array as an unsigned varint of length + 1 (here 2^28 - 1).
        ByteBuffer frame = ByteBuffer.allocate(13).putInt(22).put((byte) 0).putInt(0)
            .put((byte) 0xff).put((byte) 0xff).put((byte) 0xff).put((byte) 0x7f).flip();

        assertThatThrownBy(() -> Framing.decodeResponse(ApiKey.METADATA, (short) 12, frame))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessageStartingWith("malformed Metadata v12 response (correlation id 22): ");
    }

    @Test
    void keepsAnUnknownTagWithoutActingOnIt() {
        // Tags are how the protocol grows: a tag from a newer broker is kept, not fatal.
        ByteBuffer frame = produceResponseWithUnknownTag(new byte[] {1, 2, 3, 4, 5});

        ProduceResponseData body = (ProduceResponseData) Framing.decodeResponse(ApiKey.PRODUCE, V10, frame).body();

        assertThat(body.unknownTaggedFields()).containsExactly(new RawTaggedField(9, new byte[] {1, 2, 3, 4, 5}));
        assertThat(body.nodeEndpoints()).isEmpty();
    }

    @Test
    void refusesAnUnknownTagLongerThanTheFrame() {
        ByteBuffer frame = produceResponseWithUnknownTag(new byte[] {1, 2, 3, 4, 5});
        // The frame ends with the tag's size (varint 5) and its five bytes; claim 100 instead.
        frame.put(frame.limit() - 6, (byte) 100);

        assertThatThrownBy(() -> Framing.decodeResponse(ApiKey.PRODUCE, V10, frame))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessageStartingWith("malformed Produce v10 response (correlation id 13): ");
    }

    private static ByteBuffer produceResponseWithUnknownTag(byte[] payload) {
        var response = new org.apache.kafka.common.message.ProduceResponseData();
        response.unknownTaggedFields().add(new RawTaggedField(9, payload));
        return kafkaResponseFrame(ApiKeys.PRODUCE, V10, 13, response);
    }
}
