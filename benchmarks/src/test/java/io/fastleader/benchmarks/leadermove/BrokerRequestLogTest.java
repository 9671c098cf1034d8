package io.fastleader.benchmarks.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BrokerRequestLogTest {

    /** A Produce request's entry as a 4.3 broker writes it after {@code Completed request:}, the response and some fields shortened. */
    private static final String PRODUCE = "{\"isForwarded\":false,\"requestHeader\":{\"requestApiKey\":0,\"requestApiVersion\":13,"
        + "\"correlationId\":42,\"clientId\":\"fastleader-producer\"},\"request\":{\"transactionalId\":null,\"acks\":-1,"
        + "\"timeoutMs\":30000,\"topicData\":[{\"topicId\":\"AAAAAAAAAAAAAAAAAAAAAA\",\"partitionData\":[{\"index\":4,"
        + "\"recordsSizeInBytes\":590},{\"index\":7,\"recordsSizeInBytes\":590}]}]},\"response\":{\"responses\":[]},"
        + "\"connection\":\"127.0.0.1:40001-127.0.0.1:51234-3\",\"totalTimeMs\":12.345,\"requestQueueTimeMs\":0.1,"
        + "\"localTimeMs\":1.0,\"remoteTimeMs\":11.0,\"throttleTimeMs\":0,\"responseQueueTimeMs\":0.1,\"sendTimeMs\":0.1,"
        + "\"securityProtocol\":\"SASL_SSL\",\"principal\":\"User:leader-move\",\"listener\":\"EXTERNAL\","
        + "\"clientInformation\":{\"softwareName\":\"apache-kafka-java\",\"softwareVersion\":\"4.3.1\"}}";

    @Test
    void aProduceRequestWasAtTheBrokerForItsTotalTimeUpToItsCompletion() throws Exception {
        BrokerRequestLog.ProduceAtBroker produce = BrokerRequestLog.parse(PRODUCE, 1_000_000);

        assertThat(produce.startMicros()).isEqualTo(1_000_000 - 12_345);
        assertThat(produce.endMicros()).isEqualTo(1_000_000);
    }

    @Test
    void aProduceRequestNamesItsClientBrokerAndPartitions() throws Exception {
        BrokerRequestLog.ProduceAtBroker produce = BrokerRequestLog.parse(PRODUCE, 1_000_000);

        assertThat(produce.clientId()).isEqualTo("fastleader-producer");
        assertThat(produce.connection()).isEqualTo("127.0.0.1:40001-127.0.0.1:51234-3");
        assertThat(produce.broker()).isEqualTo("127.0.0.1:40001");
        assertThat(produce.partitions()).containsExactly(4, 7);
    }
}
