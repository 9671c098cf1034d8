package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.List;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.message.ProduceRequestData;
import io.netty.buffer.ByteBuf;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.junit.jupiter.api.Test;

/** {@link RequestFrame}: the bytes {@link Framing#encodeRequest} writes, with big batches by reference. */
class RequestFrameTest {

    private static final short PRODUCE_VERSION = 11;

    @Test
    void testAFrameWithABigBatchIsTheEncodedFrameWithTheBatchByReference() {
        MemoryRecords batch = batchOf(8, 512);
        ProduceRequestData request = produceOf(batch);

        ByteBuf[] parts = RequestFrame.encode(ApiKey.PRODUCE, PRODUCE_VERSION, 7, "client", request);
        try {
            assertThat(bytesOf(parts)).isEqualTo(bytesOf(Framing.encodeRequest(ApiKey.PRODUCE, PRODUCE_VERSION, 7, "client", request)));
            assertThat(parts).hasSize(3);
            assertThat(parts[1].hasArray()).isTrue();
            assertThat(parts[1].array()).as("the batch's part wraps the batch's own bytes").isSameAs(batch.buffer().array());
            assertThat(parts[0].isDirect()).as("the plain part is direct memory").isTrue();
        } finally {
            RequestFrame.release(parts);
        }
    }

    @Test
    void testAFrameWithASmallBatchIsOnePartCopiedWithThePlainFields() {
        ProduceRequestData request = produceOf(batchOf(1, 10));

        ByteBuf[] parts = RequestFrame.encode(ApiKey.PRODUCE, PRODUCE_VERSION, 7, "client", request);
        try {
            assertThat(parts).hasSize(1);
            assertThat(bytesOf(parts)).isEqualTo(bytesOf(Framing.encodeRequest(ApiKey.PRODUCE, PRODUCE_VERSION, 7, "client", request)));
        } finally {
            RequestFrame.release(parts);
        }
    }

    @Test
    void testVarintsAndTaggedFieldsOfAFlexibleVersionMatchTheEncodedFrame() {
        ProduceRequestData request = produceOf(batchOf(3, 700)).setTransactionalId("tx-" + "x".repeat(300));

        ByteBuf[] parts = RequestFrame.encode(ApiKey.PRODUCE, PRODUCE_VERSION, Integer.MAX_VALUE, "c".repeat(200), request);
        try {
            assertThat(bytesOf(parts)).isEqualTo(
                bytesOf(Framing.encodeRequest(ApiKey.PRODUCE, PRODUCE_VERSION, Integer.MAX_VALUE, "c".repeat(200), request)));
        } finally {
            RequestFrame.release(parts);
        }
    }

    @Test
    void testReleasingTheFrameFreesEveryPooledPart() {
        ByteBuf[] parts = RequestFrame.encode(ApiKey.PRODUCE, PRODUCE_VERSION, 7, "client", produceOf(batchOf(8, 512)));

        RequestFrame.release(parts);

        assertThat(parts).allMatch(part -> part.refCnt() == 0);
    }

    private static MemoryRecords batchOf(int records, int valueBytes) {
        MemoryRecordsBuilder builder = MemoryRecords.builder(ByteBuffer.allocate(records * valueBytes + 512), Compression.NONE,
            TimestampType.CREATE_TIME, 0);
        for (int i = 0; i < records; i++) {
            builder.append(1_000L + i, null, new byte[valueBytes]);
        }
        return builder.build();
    }

    private static ProduceRequestData produceOf(MemoryRecords batch) {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName("orders").setPartitionData(List.of(
            new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(batch))));
        return new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTopicData(topics);
    }

    private static byte[] bytesOf(ByteBuf[] parts) {
        ByteBuffer all = ByteBuffer.allocate(RequestFrame.bytes(parts));
        for (ByteBuf part : parts) {
            all.put(part.nioBuffer());
        }
        return all.array();
    }

    private static byte[] bytesOf(ByteBuffer frame) {
        byte[] bytes = new byte[frame.remaining()];
        frame.duplicate().get(bytes);
        return bytes;
    }
}
