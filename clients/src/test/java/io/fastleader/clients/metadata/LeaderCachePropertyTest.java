package io.fastleader.clients.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;

import io.fastleader.protocol.message.MetadataResponseData;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random interleavings of Metadata responses and hints against a cluster whose true history is
 * fixed: partition {@code p} is led at epoch {@code e} by broker {@code (p + e) % 5}. Truthful inputs
 * report some epoch of that history, late or early, in any order; lying hints name another leader
 * at the epoch the cache holds or an older one, as brokers with stale caches do.
 */
class LeaderCachePropertyTest {

    private static final int PARTITIONS = 3;
    private static final int BROKERS = 5;
    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    @Property(tries = 500)
    void knownEpochNeverDecreasesAndLeaderBelongsToNewestEpochSeen(@ForAll("histories") List<Input> inputs) {
        try (Metrics metrics = new Metrics()) {
            LeaderCache cache = new LeaderCache(new MetadataMetrics(metrics));
            int[] newestSeen = {-1, -1, -1};
            long view = 0;
            for (Input input : inputs) {
                TopicPartition partition = new TopicPartition("orders", input.partition);
                PartitionLeadership before = cache.leadership(partition);
                switch (input.kind) {
                    case METADATA -> {
                        cache.applyMetadata(metadata(input.partition, input.epoch), ++view);
                        newestSeen[input.partition] = Math.max(newestSeen[input.partition], input.epoch);
                    }
                    case TRUE_HINT -> {
                        HintVerdict verdict = applyHint(cache,
                                new LeaderHint(partition, TOPIC_ID, trueLeader(input.partition, input.epoch), input.epoch));
                        if (verdict.isAccepted()) {
                            newestSeen[input.partition] = Math.max(newestSeen[input.partition], input.epoch);
                        }
                    }
                    case LYING_HINT -> {
                        if (before != null) {
                            int staleEpoch = Math.max(0, before.leaderEpoch() - input.epoch % 2);
                            applyHint(cache, new LeaderHint(partition, TOPIC_ID, (before.leaderId() + 1) % BROKERS, staleEpoch));
                        }
                    }
                }
                PartitionLeadership after = cache.leadership(partition);
                if (before != null) {
                    assertThat(after.leaderEpoch()).isGreaterThanOrEqualTo(before.leaderEpoch());
                }
                if (after != null) {
                    assertThat(after.leaderEpoch()).isEqualTo(newestSeen[input.partition]);
                    assertThat(after.leaderId()).isEqualTo(trueLeader(input.partition, after.leaderEpoch()));
                }
            }
        }
    }

    @Provide
    Arbitrary<List<Input>> histories() {
        Arbitrary<Input> input = Combinators.combine(
                Arbitraries.of(Kind.class),
                Arbitraries.integers().between(0, PARTITIONS - 1),
                Arbitraries.integers().between(0, 20)).as(Input::new);
        return input.list().ofMinSize(1).ofMaxSize(60);
    }

    private static int trueLeader(int partition, int epoch) {
        return (partition + epoch) % BROKERS;
    }

    /** A response describing one partition at one epoch of the true history. */
    private static MetadataResponseData metadata(int partition, int epoch) {
        return MetadataResponses.brokers(0, 1, 2, 3, 4)
                .partition("orders", TOPIC_ID, partition, trueLeader(partition, epoch), epoch, List.of(0, 1, 2))
                .build();
    }

    enum Kind { METADATA, TRUE_HINT, LYING_HINT }

    record Input(Kind kind, int partition, int epoch) { }

    /** Applies one hint as a response with no {@code NodeEndpoints} would. */
    private static HintVerdict applyHint(LeaderCache cache, LeaderHint hint) {
        return cache.applyHints(List.of(hint), List.of()).get(hint.partition());
    }
}
