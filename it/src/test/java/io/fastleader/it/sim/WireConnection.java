package io.fastleader.it.sim;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.ResponseFrame;
import io.fastleader.protocol.message.MetadataRequestData;
import io.fastleader.protocol.message.MetadataRequestData.MetadataRequestTopic;
import io.fastleader.protocol.message.MetadataResponseData;
import io.fastleader.protocol.message.ProduceRequestData;
import io.fastleader.protocol.message.ProduceRequestData.PartitionProduceData;
import io.fastleader.protocol.message.ProduceRequestData.TopicProduceData;
import io.fastleader.protocol.message.ProduceRequestData.TopicProduceDataCollection;
import io.fastleader.protocol.message.ProduceResponseData;
import io.fastleader.protocol.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * One bare connection to one simulated broker, for the wire tests: a request at a time
 * ({@link #call}), or requests sent and answers read apart ({@link #send}, {@link #receive}), so a
 * test can pipeline requests and see which answers come.
 */
final class WireConnection implements AutoCloseable {

    /** How long a read waits: an answer that never comes fails the test instead of hanging it. */
    private static final int READ_TIMEOUT_MS = 10_000;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final String clientId;
    private int correlationId;

    WireConnection(SimulatedCluster cluster, int brokerId, String clientId) throws IOException {
        String address = cluster.brokerAddress(brokerId);
        socket = new Socket(address.substring(0, address.lastIndexOf(':')), port(address));
        socket.setSoTimeout(READ_TIMEOUT_MS);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
        this.clientId = clientId;
    }

    static int port(String address) {
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    /** Sends a request; returns its correlation id. */
    int send(ApiKey api, short version, ApiMessage request) throws IOException {
        ByteBuffer frame = Framing.encodeRequest(api, version, ++correlationId, clientId, request);
        out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
        out.flush();
        return correlationId;
    }

    /** Reads the next answer on the connection, decoded as {@code api} at {@code version}. */
    ResponseFrame receive(ApiKey api, short version) throws IOException {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return Framing.decodeResponse(api, version, ByteBuffer.wrap(frame));
    }

    ApiMessage call(ApiKey api, short version, ApiMessage request) throws IOException {
        return callFrame(api, version, request).body();
    }

    /** Sends a request and reads the next answer on the connection, whichever request it answers. */
    ResponseFrame callFrame(ApiKey api, short version, ApiMessage request) throws IOException {
        send(api, version, request);
        return receive(api, version);
    }

    /** The correlation id of the last request sent. */
    int lastCorrelationId() {
        return correlationId;
    }

    MetadataResponseData metadata(String... topics) throws IOException {
        return (MetadataResponseData) call(ApiKey.METADATA, (short) 12, new MetadataRequestData()
            .setTopics(List.of(topics).stream().map(t -> new MetadataRequestTopic().setName(t)).toList()));
    }

    /** Produce v12, acks=-1, of {@code values} to partition {@code partition} of {@code topic}. */
    int sendProduce(String topic, int partition, String... values) throws IOException {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        return send(ApiKey.PRODUCE, (short) 12, produceRequest(topic, partition, MemoryRecords.withRecords(Compression.NONE, records)));
    }

    /** A Produce request, acks=-1, of {@code records} to one partition. */
    static ProduceRequestData produceRequest(String topic, int partition, MemoryRecords records) {
        TopicProduceDataCollection topics = new TopicProduceDataCollection();
        topics.add(new TopicProduceData().setName(topic).setPartitionData(List.of(new PartitionProduceData()
            .setIndex(partition).setRecords(records))));
        return new ProduceRequestData().setAcks((short) -1).setTimeoutMs(1000).setTopicData(topics);
    }

    /** Produce v12, acks=-1, of {@code values} to partition {@code partition} of {@code topic}: the partition's answer. */
    PartitionProduceResponse produce(String topic, int partition, String... values) throws IOException {
        sendProduce(topic, partition, values);
        return ((ProduceResponseData) receive(ApiKey.PRODUCE, (short) 12).body()).responses().find(topic).partitionResponses().get(0);
    }

    /** Produce v12, acks=-1, of {@code records} to partition {@code partition} of {@code topic}: the partition's answer. */
    PartitionProduceResponse produce(String topic, int partition, MemoryRecords records) throws IOException {
        ProduceResponseData answer = (ProduceResponseData) call(ApiKey.PRODUCE, (short) 12, produceRequest(topic, partition, records));
        return answer.responses().find(topic).partitionResponses().get(0);
    }

    /** Whether the broker closed the connection: the next read finds its end. */
    boolean closedByBroker() throws IOException {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException e) {
            return false; // open and silent
        } catch (IOException e) {
            return true; // reset
        }
    }

    /** Whether no byte arrives within {@code millis}: for a connection that must not be answered. */
    boolean silentFor(int millis) throws IOException {
        socket.setSoTimeout(millis);
        try {
            in.read();
            return false; // a byte, or the end of the connection
        } catch (SocketTimeoutException e) {
            return true;
        } finally {
            socket.setSoTimeout(READ_TIMEOUT_MS);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
