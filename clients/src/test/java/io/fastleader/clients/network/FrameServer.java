package io.fastleader.clients.network;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Optional;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;

/**
 * A scripted broker for one client connection on loopback: the test reads each request frame and
 * decides what goes back, byte for byte if it wants to.
 */
final class FrameServer implements AutoCloseable {

    private static final int READ_TIMEOUT_MS = 10_000;

    private final ServerSocket server;
    private Socket client;
    private DataInputStream in;
    private DataOutputStream out;

    FrameServer() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    }

    /**
     * A server whose connection's receive buffer is about {@code receiveBufferBytes}, so that a
     * request it does not read soon fills the client's send buffer.
     */
    FrameServer(int receiveBufferBytes) throws IOException {
        server = new ServerSocket();
        server.setReceiveBufferSize(receiveBufferBytes);
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
    }

    InetSocketAddress address() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
    }

    /** A request as the server read it; {@code frameBytes} counts the bytes after the size prefix. */
    record Received(ApiKey api, short version, int correlationId, String clientId, int frameBytes) {
    }

    /** Reads the next request frame, accepting the connection first if needed. */
    Received read() throws IOException {
        return readWithin(READ_TIMEOUT_MS).orElseThrow(() -> new SocketTimeoutException("no request within " + READ_TIMEOUT_MS + " ms"));
    }

    /** The next request, or empty if none arrives within {@code timeoutMs}. */
    Optional<Received> readWithin(int timeoutMs) throws IOException {
        accept();
        client.setSoTimeout(timeoutMs);
        int size;
        try {
            size = in.readInt();
        } catch (SocketTimeoutException e) {
            return Optional.empty();
        }
        byte[] frame = new byte[size];
        in.readFully(frame);
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        ApiKey api = ApiKey.forId(buffer.getShort(0)).orElseThrow();
        short version = buffer.getShort(2);
        RequestHeaderData header = new RequestHeaderData(new ByteBufferAccessor(buffer), api.requestHeaderVersion(version));
        return Optional.of(new Received(api, version, header.correlationId(), header.clientId(), size));
    }

    /** Answers {@code request} with {@code body} at the request's version. */
    void respond(Received request, ApiMessage body) throws IOException {
        respond(request.api(), request.version(), request.correlationId(), body);
    }

    /** Answers with {@code body} encoded at {@code version}, behind the header that version takes. */
    void respond(ApiKey api, short version, int correlationId, Message body) throws IOException {
        writeRaw(responseFrame(api, version, correlationId, body));
    }

    /** The bytes of a response frame, size prefix included, for tests that write several at once. */
    static byte[] responseFrame(Received request, Message body) {
        return responseFrame(request.api(), request.version(), request.correlationId(), body);
    }

    private static byte[] responseFrame(ApiKey api, short version, int correlationId, Message body) {
        return Framing.encodeResponse(api, version, correlationId, body).array();
    }

    /** Reads the handshake and answers it with {@code ranges}. */
    Received answerHandshake(ApiVersionsResponseData ranges) throws IOException {
        Received handshake = read();
        respond(handshake, ranges);
        return handshake;
    }

    /** Writes bytes as they are, frame or not. */
    void writeRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Drops the client connection. */
    void disconnect() throws IOException {
        client.close();
    }

    private void accept() throws IOException {
        if (client == null) {
            server.setSoTimeout(READ_TIMEOUT_MS);
            client = server.accept();
            in = new DataInputStream(client.getInputStream());
            out = new DataOutputStream(client.getOutputStream());
        }
    }

    @Override
    public void close() {
        try {
            if (client != null) {
                client.close();
            }
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An ApiVersions answer listing {@code ranges} as (api, min, max) triples. */
    static ApiVersionsResponseData ranges(Object... triples) {
        ApiVersionsResponseData response = new ApiVersionsResponseData();
        for (int i = 0; i < triples.length; i += 3) {
            response.apiKeys().add(new ApiVersionsResponseData.ApiVersion()
                .setApiKey(((ApiKey) triples[i]).id())
                .setMinVersion(((Number) triples[i + 1]).shortValue())
                .setMaxVersion(((Number) triples[i + 2]).shortValue()));
        }
        return response;
    }
}
