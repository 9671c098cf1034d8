package io.fastleader.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;

import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FramingTest {

    private static final int MAX_FRAME = 1 << 20;

    @ParameterizedTest
    @EnumSource(ApiKey.class)
    void kafkaClientsParsesEveryRequestWeFrame(ApiKey api) throws Exception {
        // Up to the newest version kafka-clients 4.3.1 speaks: ApiVersions v5 (KIP-1242) is ApiVersionsV5Test's.
        short newest = (short) Math.min(api.highestVersion(), ApiKeys.forId(api.id()).latestVersion());
        for (short v = api.lowestVersion(); v <= newest; v++) {
            ByteBuffer frame = Framing.encodeRequest(api, v, 42 + v, "app-1", api.newRequest());

            assertThat(frame.getInt()).isEqualTo(frame.remaining());
            RequestHeader header = RequestHeader.parse(frame);
            assertThat(header.apiKey()).isEqualTo(ApiKeys.forId(api.id()));
            assertThat(header.apiVersion()).isEqualTo(v);
            assertThat(header.correlationId()).isEqualTo(42 + v);
            assertThat(header.clientId()).isEqualTo("app-1");
            ByteBufferAccessor body = new ByteBufferAccessor(frame);
            Class.forName(MessageSchemas.KAFKA_PACKAGE + "." + api.displayName() + "RequestData")
                .getConstructor(org.apache.kafka.common.protocol.Readable.class, short.class)
                .newInstance(body, v);
            assertThat(body.remaining()).as("%s v%d", api, v).isZero();
        }
    }

    @Test
    void refusesToFrameABodyOfAnotherApi() {
        assertThatThrownBy(() -> Framing.encodeRequest(ApiKey.PRODUCE, (short) 9, 1, "c", new MetadataRequestData()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("MetadataRequestData is not a Produce request");
    }

    @Test
    void refusesToFrameAVersionOutsideOurWindow() {
        assertThatThrownBy(() -> Framing.encodeRequest(ApiKey.PRODUCE, (short) 13, 1, "c", new ProduceRequestData()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("Produce v13 is outside our window v3-v12");
    }

    @Test
    void decodesTheResponseKafkaClientsFrames() {
        var kafkas = new org.apache.kafka.common.message.MetadataResponseData().setClusterId("c1").setControllerId(2);
        kafkas.brokers().add(new org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker()
            .setNodeId(2).setHost("b2").setPort(9092));
        ByteBuffer frame = kafkaResponseFrame(ApiKeys.METADATA, (short) 12, 77, kafkas);

        ResponseFrame decoded = Framing.decodeResponse(ApiKey.METADATA, (short) 12, frame);

        assertThat(decoded.correlationId()).isEqualTo(77);
        MetadataResponseData body = (MetadataResponseData) decoded.body();
        assertThat(body.clusterId()).isEqualTo("c1");
        assertThat(body.brokers().find(2).host()).isEqualTo("b2");
    }

    @Test
    void decodesAFlexibleApiVersionsResponseBehindHeaderV0() {
        var kafkas = new org.apache.kafka.common.message.ApiVersionsResponseData();
        kafkas.apiKeys().add(new org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion()
            .setApiKey(ApiKeys.PRODUCE.id).setMinVersion((short) 3).setMaxVersion((short) 12));
        ByteBuffer frame = kafkaResponseFrame(ApiKeys.API_VERSIONS, (short) 4, 5, kafkas);

        ApiVersionsResponseData body = (ApiVersionsResponseData) Framing.decodeResponse(ApiKey.API_VERSIONS, (short) 4, frame).body();

        assertThat(body.apiKeys().find(ApiKeys.PRODUCE.id).maxVersion()).isEqualTo((short) 12);
    }

    @Test
    void decodingLeavesTheCallersBufferWhereItWas() {
        ByteBuffer frame = kafkaResponseFrame(ApiKeys.PRODUCE, (short) 9, 3, new org.apache.kafka.common.message.ProduceResponseData());

        Framing.decodeResponse(ApiKey.PRODUCE, (short) 9, frame);

        assertThat(frame.position()).isZero();
        assertThat(Framing.correlationId(frame)).isEqualTo(3);
    }

    @Test
    void decodesASizedFrame() {
        ByteBuffer frame = kafkaResponseFrame(ApiKeys.PRODUCE, (short) 11, 9, new org.apache.kafka.common.message.ProduceResponseData());

        ResponseFrame decoded = Framing.decodeSizedResponse(ApiKey.PRODUCE, (short) 11, sized(frame), MAX_FRAME);

        assertThat(decoded.correlationId()).isEqualTo(9);
        assertThat(decoded.body()).isEqualTo(new ProduceResponseData());
    }

    @Test
    void encodesAResponseAsKafkaDoes() {
        var kafkas = new org.apache.kafka.common.message.MetadataResponseData().setClusterId("c1").setControllerId(2);
        MetadataResponseData ours = new MetadataResponseData().setClusterId("c1").setControllerId(2);

        ByteBuffer encoded = Framing.encodeResponse(ApiKey.METADATA, (short) 12, 77, ours);

        assertThat(encoded).isEqualTo(sized(kafkaResponseFrame(ApiKeys.METADATA, (short) 12, 77, kafkas)));
        assertThat(Framing.decodeSizedResponse(ApiKey.METADATA, (short) 12, encoded.duplicate(), MAX_FRAME).body()).isEqualTo(ours);
    }

    /** A response frame as a broker sends it, written by kafka-clients' own header class: header and body, no size prefix. */
    static ByteBuffer kafkaResponseFrame(ApiKeys api, short version, int correlationId, Message body) {
        var header = new org.apache.kafka.common.message.ResponseHeaderData().setCorrelationId(correlationId);
        short headerVersion = api.responseHeaderVersion(version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer frame = ByteBuffer.allocate(header.size(cache, headerVersion) + body.size(cache, version));
        ByteBufferAccessor out = new ByteBufferAccessor(frame);
        header.write(out, cache, headerVersion);
        body.write(out, cache, version);
        return frame.flip();
    }

    static ByteBuffer sized(ByteBuffer frame) {
        ByteBuffer sized = ByteBuffer.allocate(Framing.SIZE_PREFIX_BYTES + frame.remaining());
        sized.putInt(frame.remaining()).put(frame.duplicate());
        return sized.flip();
    }
}
