package io.fastleader.it.cluster;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.Framing;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One request on a fresh socket, or on one the caller holds, and the response's bytes exactly as
 * they came off the wire: no ApiVersions first, no version negotiation, nothing decoded on the way.
 */
final class RawExchange {

    private static final int SOCKET_TIMEOUT_MS = 30_000;

    private RawExchange() {
    }

    /** Sends one request and returns the response frame without its size prefix. */
    static byte[] roundTrip(InetSocketAddress address, ApiKey api, short version, int correlationId, ApiMessage body) {
        try (Socket socket = new Socket(address.getHostString(), address.getPort())) {
            return roundTrip(socket, api, version, correlationId, body);
        } catch (IOException e) {
            throw new UncheckedIOException("exchange with " + address + " failed", e);
        }
    }

    /** Sends one request on an open socket, which stays open, and returns the response frame without its size prefix. */
    static byte[] roundTrip(Socket socket, ApiKey api, short version, int correlationId, ApiMessage body) throws IOException {
        socket.setSoTimeout(SOCKET_TIMEOUT_MS);
        ByteBuffer request = Framing.encodeRequest(api, version, correlationId, "fastleader-raw", body);
        socket.getOutputStream().write(request.array(), request.arrayOffset() + request.position(), request.remaining());
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] frame = new byte[Framing.checkResponseSize(in.readInt(), 1 << 20)];
        in.readFully(frame);
        return frame;
    }

    /** The response body in a frame from {@link #roundTrip}. */
    static ApiMessage body(ApiKey api, short version, byte[] frame) {
        return Framing.decodeResponse(api, version, ByteBuffer.wrap(frame)).body();
    }

    /** Encodes a response frame (without size prefix) as a broker would send it. */
    static byte[] encodeResponse(ApiKey api, short version, int correlationId, ApiMessage body) {
        byte[] sized = Framing.encodeResponse(api, version, correlationId, body).array();
        return Arrays.copyOfRange(sized, Framing.SIZE_PREFIX_BYTES, sized.length);
    }
}
