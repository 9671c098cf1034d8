package io.fastleader.benchmarks.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

class BrokerTimeTest {

    private static BrokerRequestLog.ProduceAtBroker request(long startMicros, long endMicros, int... partitions) {
        return onConnection("127.0.0.1:9092-127.0.0.1:50000-0", startMicros, endMicros, partitions);
    }

    private static BrokerRequestLog.ProduceAtBroker onConnection(String connection, long startMicros, long endMicros,
                                                                 int... partitions) {
        return new BrokerRequestLog.ProduceAtBroker("p", connection, partitions, startMicros, endMicros);
    }

    @Test
    void aRequestInsideTheRecordsSpanCountsWhole() {
        BrokerTime time = BrokerTime.withWaiting(List.of(request(100, 130, 0)));

        assertThat(time.within(0, 50, 200)).isEqualTo(30);
    }

    @Test
    void aRequestAtTheBrokerBeforeTheRecordsSendCountsFromTheSend() {
        BrokerTime time = BrokerTime.withWaiting(List.of(request(100, 130, 0)));

        assertThat(time.within(0, 110, 200)).isEqualTo(20);
    }

    @Test
    void aRequestLoggedAfterTheRecordsAcknowledgementCountsUpToIt() {
        BrokerTime time = BrokerTime.withWaiting(List.of(request(100, 130, 0)));

        assertThat(time.within(0, 50, 120)).isEqualTo(20);
    }

    @Test
    void aRequestReadAfterTheRecordsAcknowledgementCarriedALaterBatch() {
        BrokerTime time = BrokerTime.withWaiting(List.of(request(130, 150, 0)));

        assertThat(time.within(0, 50, 120)).isZero();
    }

    @Test
    void overlappingRequestsCountOnce() {
        BrokerTime time = BrokerTime.withWaiting(List.of(request(100, 130, 0), request(120, 150, 0), request(140, 145, 0)));

        assertThat(time.within(0, 0, 1000)).isEqualTo(50);
    }

    @Test
    void separateRequestsAddUp() {
        BrokerTime time = BrokerTime.withWaiting(List.of(request(30_000, 30_010, 0), request(100, 130, 0)));

        assertThat(time.within(0, 0, 100_000)).isEqualTo(40);
        assertThat(time.within(0, 120, 30_010)).isEqualTo(20);
    }

    @Test
    void onlyRequestsCarryingTheRecordsPartitionCount() {
        BrokerTime time = BrokerTime.withWaiting(List.of(request(100, 130, 1, 2), request(20_000, 20_010, 0, 2)));

        assertThat(time.within(0, 0, 100_000)).isEqualTo(10);
        assertThat(time.within(2, 0, 100_000)).isEqualTo(40);
    }

    @Test
    void withoutARequestTheBrokerTimeIsZero() {
        BrokerTime time = BrokerTime.withWaiting(List.of(request(100, 130, 1)));

        assertThat(time.within(0, 0, 1000)).isZero();
        assertThat(time.within(1, 200, 300)).isZero();
        assertThat(time.within(1, 0, 50)).isZero();
        assertThat(time.within(1, 130, 200)).isZero();
    }

    @Test
    void aRequestReadRightAfterTheOneBeforeOnItsConnectionWasAtTheBrokerSinceThatOneWas() {
        BrokerTime time = BrokerTime.withWaiting(List.of(request(10_000, 800_000, 1), request(801_000, 802_000, 0)));

        assertThat(time.within(0, 0, 900_000)).isEqualTo(792_000);
        assertThat(time.within(0, 500_000, 900_000)).isEqualTo(302_000);
    }

    @Test
    void aRequestReadWellAfterTheOneBeforeOnItsConnectionArrivedWhenRead() {
        BrokerTime time = BrokerTime.withWaiting(List.of(request(10_000, 800_000, 1), request(900_000, 901_000, 0)));

        assertThat(time.within(0, 0, 1_000_000)).isEqualTo(1_000);
    }

    @Test
    void aRequestOnAnotherConnectionDoesNotWaitBehindOne() {
        BrokerTime time = BrokerTime.withWaiting(List.of(onConnection("127.0.0.1:9092-127.0.0.1:50000-0", 10_000, 800_000, 1),
            onConnection("127.0.0.1:9093-127.0.0.1:50001-0", 801_000, 802_000, 0)));

        assertThat(time.within(0, 0, 900_000)).isEqualTo(1_000);
    }

    @Test
    void servedTimeLeavesOutTheWaitBehindAnEarlierRequest() {
        BrokerTime time = BrokerTime.served(List.of(request(10_000, 800_000, 1), request(801_000, 802_000, 0)));

        assertThat(time.within(0, 0, 900_000)).isEqualTo(1_000);
    }

    @Test
    void aPauseCountsForEveryPartitionOnceWhereARequestOverlapsIt() {
        BrokerTime time = BrokerTime.withWaiting(List.of(request(100, 130, 0))).orDuring(List.of(new long[] {120, 160}));

        assertThat(time.within(0, 50, 200)).isEqualTo(60);
        assertThat(time.within(7, 50, 200)).isEqualTo(40);
    }
}
