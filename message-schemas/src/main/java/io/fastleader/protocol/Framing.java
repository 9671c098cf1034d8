package io.fastleader.protocol;

import java.nio.ByteBuffer;

import io.fastleader.protocol.message.RequestHeaderData;
import io.fastleader.protocol.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Kafka's framing: a frame is a big-endian int32 size followed by that many bytes of header and
 * body. Requests are encoded here with their header; responses are decoded here for the API and
 * version of the request they answer, which the caller finds by correlation id.
 */
public final class Framing {

    /** Bytes in the size prefix in front of every frame. */
    public static final int SIZE_PREFIX_BYTES = 4;

    /** Every response header starts with the correlation id, so no frame can be shorter. */
    private static final int MIN_RESPONSE_FRAME_BYTES = 4;

    private Framing() {
    }

    /**
     * Encodes a request frame: size prefix, request header, body.
     *
     * @return a buffer positioned at the start of the frame, ready to write to a socket
     * @throws IllegalArgumentException if {@code body} is not a request of {@code api}, or
     *                                  {@code version} is outside our window
     */
    public static ByteBuffer encodeRequest(ApiKey api, short version, int correlationId, String clientId, ApiMessage body) {
        return sizedFrame(requestHeader(api, version, correlationId, clientId, body), api.requestHeaderVersion(version), body, version);
    }

    /**
     * The header of a request of {@code api} at {@code version}, for a caller that writes the frame
     * itself (at header version {@link ApiKey#requestHeaderVersion}).
     *
     * @throws IllegalArgumentException if {@code body} is not a request of {@code api}, or
     *                                  {@code version} is outside our window
     */
    public static RequestHeaderData requestHeader(ApiKey api, short version, int correlationId, String clientId, ApiMessage body) {
        if (!api.isRequest(body)) {
            throw new IllegalArgumentException("a " + body.getClass().getSimpleName() + " is not a " + api.displayName() + " request");
        }
        if (!api.isSupported(version)) {
            throw new IllegalArgumentException(api.displayName() + " v" + version + " is outside our window v"
                + api.lowestVersion() + "-v" + api.highestVersion());
        }
        return new RequestHeaderData()
            .setRequestApiKey(api.id())
            .setRequestApiVersion(version)
            .setCorrelationId(correlationId)
            .setClientId(clientId);
    }

    /**
     * Encodes a response frame as a broker sends it: size prefix, response header, body. Brokers,
     * proxies and test servers answer with it; the client itself only decodes responses. The body
     * is written as given, so a test can answer with a body of the wrong type on purpose.
     *
     * @return a buffer positioned at the start of the frame, ready to write to a socket
     */
    public static ByteBuffer encodeResponse(ApiKey api, short version, int correlationId, Message body) {
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        return sizedFrame(header, api.responseHeaderVersion(version), body, version);
    }

    /** Size prefix, header, body: the layout of every frame in both directions. */
    private static ByteBuffer sizedFrame(Message header, short headerVersion, Message body, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = header.size(cache, headerVersion) + body.size(cache, version);
        ByteBuffer frame = ByteBuffer.allocate(SIZE_PREFIX_BYTES + size);
        frame.putInt(size);
        ByteBufferAccessor out = new ByteBufferAccessor(frame);
        header.write(out, cache, headerVersion);
        body.write(out, cache, version);
        return frame.flip();
    }

    /**
     * Checks a size prefix read from the wire before anything is allocated for the frame.
     *
     * @return {@code size}, if acceptable
     * @throws MalformedFrameException if it is negative, too small for a response header, or
     *                                 larger than {@code maxFrameBytes}
     */
    public static int checkResponseSize(int size, int maxFrameBytes) {
        if (size < MIN_RESPONSE_FRAME_BYTES) {
            throw new MalformedFrameException("invalid response size prefix " + size
                + ": a response frame holds at least " + MIN_RESPONSE_FRAME_BYTES + " bytes");
        }
        if (size > maxFrameBytes) {
            throw new MalformedFrameException("response size prefix " + size + " exceeds the limit of "
                + maxFrameBytes + " bytes");
        }
        return size;
    }

    /**
     * Reads the correlation id of a response frame (the bytes after the size prefix) without
     * consuming it, so the caller can look up which request it answers.
     */
    public static int correlationId(ByteBuffer frame) {
        if (frame.remaining() < MIN_RESPONSE_FRAME_BYTES) {
            throw new MalformedFrameException("response frame of " + frame.remaining()
                + " bytes is too short to hold a correlation id");
        }
        return frame.getInt(frame.position());
    }

    /**
     * Decodes a response frame (the bytes after the size prefix) as the response to {@code api} at
     * {@code version}. The buffer's position is not changed.
     *
     * @throws MalformedFrameException if the bytes do not hold exactly one such response
     */
    public static ResponseFrame decodeResponse(ApiKey api, short version, ByteBuffer frame) {
        if (!api.isSupported(version)) {
            throw new IllegalArgumentException(api.displayName() + " v" + version + " is outside our window");
        }
        ByteBufferAccessor in = new ByteBufferAccessor(frame.duplicate());
        int correlationId = correlationId(frame);
        String what = api.displayName() + " v" + version + " response (correlation id " + correlationId + ")";
        ApiMessage body = api.newResponse();
        try {
            new ResponseHeaderData(in, api.responseHeaderVersion(version));
            body.read(in, version);
        } catch (RuntimeException e) {
            throw new MalformedFrameException("malformed " + what + ": " + e.getMessage(), e);
        }
        if (in.remaining() != 0) {
            throw new MalformedFrameException("malformed " + what + ": " + in.remaining()
                + " bytes left after the body");
        }
        return new ResponseFrame(correlationId, body);
    }

    /**
     * Decodes a whole response frame, size prefix included, as {@link #decodeResponse} does.
     *
     * @throws MalformedFrameException if the size prefix is invalid or does not match the bytes
     *                                 that follow it
     */
    public static ResponseFrame decodeSizedResponse(ApiKey api, short version, ByteBuffer sizedFrame, int maxFrameBytes) {
        if (sizedFrame.remaining() < SIZE_PREFIX_BYTES) {
            throw new MalformedFrameException("truncated size prefix: " + sizedFrame.remaining() + " bytes");
        }
        int size = checkResponseSize(sizedFrame.getInt(sizedFrame.position()), maxFrameBytes);
        int available = sizedFrame.remaining() - SIZE_PREFIX_BYTES;
        if (available != size) {
            throw new MalformedFrameException((available < size ? "truncated" : "oversized") + " frame: size prefix says "
                + size + " bytes, " + available + " follow");
        }
        return decodeResponse(api, version, sizedFrame.slice(sizedFrame.position() + SIZE_PREFIX_BYTES, size));
    }
}
