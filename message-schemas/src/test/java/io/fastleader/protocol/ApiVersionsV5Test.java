package io.fastleader.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.junit.jupiter.api.Test;

import io.fastleader.protocol.message.ApiVersionsRequestData;
import io.fastleader.protocol.message.ApiVersionsResponseData;

/**
 * ApiVersions v5 (KIP-1242), which kafka-clients 4.3.1, the oracle of {@code KafkaClientsOracleTest},
 * does not speak: the request's bytes field by field as the KIP's schema lays them out (v4's
 * client software name and version, then ClusterId as a compact nullable string and NodeId as an
 * int32, then the tagged fields), and a response whose body is v4's.
 */
class ApiVersionsV5Test {

    private static final short V5 = 5;

    @Test
    void aRequestNamingAClusterAndANodeWritesThemAfterTheClientSoftware() {
        ApiVersionsRequestData request = new ApiVersionsRequestData().setClientSoftwareName("a").setClientSoftwareVersion("b")
            .setClusterId("c").setNodeId(7);

        assertThat(bytes(request)).containsExactly(2, 'a', 2, 'b', 2, 'c', 0, 0, 0, 7, 0);
    }

    @Test
    void aRequestNamingNothingWritesANullClusterAndNodeMinusOne() {
        ApiVersionsRequestData request = new ApiVersionsRequestData().setClientSoftwareName("a").setClientSoftwareVersion("b");

        assertThat(bytes(request)).containsExactly(2, 'a', 2, 'b', 0, 0xff, 0xff, 0xff, 0xff, 0);
    }

    @Test
    void aResponseAtV5IsWrittenAsAtV4() {
        ApiVersionsResponseData response = new ApiVersionsResponseData().setErrorCode((short) 129).setThrottleTimeMs(3);
        response.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey((short) 18).setMinVersion((short) 0).setMaxVersion(V5));

        assertThat(MessageUtil.toByteBufferAccessor(response, V5).buffer())
            .isEqualTo(MessageUtil.toByteBufferAccessor(response, (short) 4).buffer());
    }

    @Test
    void aRequestReadsBackAsWritten() {
        ApiVersionsRequestData request = new ApiVersionsRequestData().setClientSoftwareName("fastleader").setClientSoftwareVersion("1")
            .setClusterId("the-cluster").setNodeId(3);

        ApiVersionsRequestData read = new ApiVersionsRequestData(new ByteBufferAccessor(MessageUtil.toByteBufferAccessor(request, V5).buffer()), V5);

        assertThat(read).isEqualTo(request);
    }

    private static byte[] bytes(ApiVersionsRequestData request) {
        return MessageUtil.byteBufferToArray(MessageUtil.toByteBufferAccessor(request, V5).buffer());
    }
}
