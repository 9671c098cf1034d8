package io.fastleader.benchmarks.leadermove;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.fastleader.benchmarks.driver.RecordTimes;

class LatencySplitsTest {

    @Test
    void eachRecordsClientTimeIsItsLatencyLessItsPartitionsTimeAtABroker() {
        BrokerTime atBrokers = BrokerTime.of(List.of(new BrokerRequestLog.ProduceAtBroker("p",
            "127.0.0.1:9092-127.0.0.1:50000-0", new int[] {3}, 1_100, 1_400)));
        LatencySplits splits = LatencySplits.of(List.of(new RecordTimes.Record(3, 1_000, 1_500)), atBrokers);

        LatencySplits.Split split = splits.at(1.0);
        assertThat(split.totalMicros()).isEqualTo(500);
        assertThat(split.brokerMicros()).isEqualTo(300);
        assertThat(split.clientMicros()).isEqualTo(200);
    }

    @Test
    void theSplitAtARankIsThatOfTheRecordAtThatRankByLatency() {
        List<RecordTimes.Record> records = new ArrayList<>();
        for (int latency = 1000; latency >= 1; latency--) {
            records.add(new RecordTimes.Record(0, 0, latency));
        }
        LatencySplits splits = LatencySplits.of(records, BrokerTime.of(List.of()));

        assertThat(splits.at(0.999).totalMicros()).isEqualTo(999);
        assertThat(splits.at(1.0).totalMicros()).isEqualTo(1000);
        assertThat(splits.slowest()).extracting(LatencySplits.Split::totalMicros).startsWith(1000L, 999L).hasSize(10);
    }
}
