package io.fastleader.benchmarks.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.driver.RecordTimes;

class LatencySplitsTest {

    @Test
    void eachRecordsClientTimeIsItsLatencyLessItsPartitionsTimeAtABroker() {
        List<BrokerRequestLog.ProduceAtBroker> requests = List.of(new BrokerRequestLog.ProduceAtBroker("p",
            "127.0.0.1:9092-127.0.0.1:50000-0", new int[] {3}, 1_100, 1_400));
        LatencySplits splits = LatencySplits.of(List.of(new RecordTimes.Record(3, 1_000, 1_500)), requests, List.of());

        LatencySplits.Split split = splits.at(1.0);
        assertThat(split.totalMicros()).isEqualTo(500);
        assertThat(split.brokerMicros()).isEqualTo(300);
        assertThat(split.clientMicros()).isEqualTo(200);
    }

    @Test
    void theBrokerPartIsTimeServedPlusTimeWaitingUnreadBehindAnEarlierRequest() {
        List<BrokerRequestLog.ProduceAtBroker> requests = List.of(
            new BrokerRequestLog.ProduceAtBroker("p", "127.0.0.1:9092-127.0.0.1:50000-0", new int[] {1}, 0, 400_000),
            new BrokerRequestLog.ProduceAtBroker("p", "127.0.0.1:9092-127.0.0.1:50000-0", new int[] {3}, 401_000, 410_000));
        LatencySplits splits = LatencySplits.of(List.of(new RecordTimes.Record(3, 100_000, 411_000)), requests, List.of());

        LatencySplits.Split split = splits.at(1.0);
        assertThat(split.servedMicros()).isEqualTo(9_000);
        assertThat(split.unreadMicros()).isEqualTo(301_000);
        assertThat(split.clientMicros()).isEqualTo(1_000);
    }

    @Test
    void aPauseOfTheClustersJvmOutsideTheBrokerPartIsPausedNotClientTime() {
        List<BrokerRequestLog.ProduceAtBroker> requests = List.of(new BrokerRequestLog.ProduceAtBroker("p",
            "127.0.0.1:9092-127.0.0.1:50000-0", new int[] {3}, 100_000, 110_000));
        // One pause before the request was read, one overlapping its service by 5 ms.
        List<long[]> pauses = List.of(new long[] {20_000, 80_000}, new long[] {105_000, 125_000});
        LatencySplits splits = LatencySplits.of(List.of(new RecordTimes.Record(3, 0, 200_000)), requests, pauses);

        LatencySplits.Split split = splits.at(1.0);
        assertThat(split.brokerMicros()).isEqualTo(10_000);
        assertThat(split.pausedMicros()).isEqualTo(60_000 + 15_000);
        assertThat(split.clientMicros()).isEqualTo(200_000 - 10_000 - 75_000);
    }

    @Test
    void aPauseBeforeTheSendOrAfterTheAcknowledgementIsNotTheRecords() {
        List<BrokerRequestLog.ProduceAtBroker> requests = List.of(new BrokerRequestLog.ProduceAtBroker("p",
            "127.0.0.1:9092-127.0.0.1:50000-0", new int[] {3}, 1_100, 1_400));
        List<long[]> pauses = List.of(new long[] {0, 1_050}, new long[] {1_450, 3_000});
        LatencySplits splits = LatencySplits.of(List.of(new RecordTimes.Record(3, 1_000, 1_500)), requests, pauses);

        LatencySplits.Split split = splits.at(1.0);
        assertThat(split.pausedMicros()).isEqualTo(50 + 50);
        assertThat(split.clientMicros()).isEqualTo(500 - 300 - 100);
    }

    @Test
    void theSplitAtARankIsThatOfTheRecordAtThatRankByLatency() {
        List<RecordTimes.Record> records = new ArrayList<>();
        for (int latency = 1000; latency >= 1; latency--) {
            records.add(new RecordTimes.Record(0, 0, latency));
        }
        LatencySplits splits = LatencySplits.unsplit(records);

        assertThat(splits.at(0.999).totalMicros()).isEqualTo(999);
        assertThat(splits.at(1.0).totalMicros()).isEqualTo(1000);
        assertThat(splits.slowest()).extracting(LatencySplits.Split::totalMicros).startsWith(1000L, 999L).hasSize(10);
    }

    @Test
    void theRecordsWithinAWindowAreThoseSentFromItsStartUntilItsEnd() {
        List<RecordTimes.Record> records = List.of(new RecordTimes.Record(0, 999_000, 1_000_000), new RecordTimes.Record(0, 1_000_000, 1_500_000),
            new RecordTimes.Record(0, 1_999_000, 2_000_000), new RecordTimes.Record(0, 2_000_000, 2_001_000));
        LatencySplits splits = LatencySplits.unsplit(records);

        LatencySplits inWindow = splits.sentWithin(List.of(new Scenario.Window("rotation", 1_000, 2_000)));
        assertThat(inWindow.records()).isEqualTo(2);
        assertThat(inWindow.at(1.0).totalMicros()).isEqualTo(500_000);
        assertThat(inWindow.brokerMeasured()).isFalse();
    }
}
