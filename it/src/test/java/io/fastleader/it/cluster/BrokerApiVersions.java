package io.fastleader.it.cluster;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.message.ApiVersionsRequestData;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.Errors;

/** Asks a broker which API versions it speaks, over a plain socket with fastleader's own framing. */
final class BrokerApiVersions {

    private static final short VERSION = 3;
    private static final int MAX_RESPONSE_BYTES = 1 << 20;
    private static final int TIMEOUT_MS = 10_000;

    private BrokerApiVersions() {
    }

    /** The ApiVersions answer of the first broker in {@code bootstrapServers}. */
    static ApiVersionsResponseData of(String bootstrapServers) {
        String first = bootstrapServers.split(",")[0];
        int colon = first.lastIndexOf(':');
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(first.substring(0, colon), Integer.parseInt(first.substring(colon + 1))), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            ByteBuffer request = Framing.encodeRequest(ApiKey.API_VERSIONS, VERSION, 1, "fastleader-it",
                new ApiVersionsRequestData().setClientSoftwareName("fastleader-it").setClientSoftwareVersion("0"));
            socket.getOutputStream().write(request.array(), request.position(), request.remaining());
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] frame = new byte[Framing.checkResponseSize(in.readInt(), MAX_RESPONSE_BYTES)];
            in.readFully(frame);
            ApiVersionsResponseData response = (ApiVersionsResponseData)
                Framing.decodeResponse(ApiKey.API_VERSIONS, VERSION, ByteBuffer.wrap(frame)).body();
            if (response.errorCode() != Errors.NONE.code()) {
                throw new IllegalStateException("ApiVersions failed: " + Errors.forCode(response.errorCode()));
            }
            return response;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot ask " + first + " for its API versions", e);
        }
    }

    /** The newest version of {@code api} the broker speaks. */
    static short maxVersion(ApiVersionsResponseData response, ApiKey api) {
        return response.apiKeys().find(api.id()).maxVersion();
    }
}
