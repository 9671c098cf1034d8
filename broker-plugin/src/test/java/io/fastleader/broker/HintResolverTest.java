package io.fastleader.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class HintResolverTest {

    private static final Partition PARTITION = new Partition("orders", 3);
    private static final Endpoint PROXY_FOR_NODE_2 = new Endpoint(2, "proxy.example", 9094, "rack-b");

    /** A view that is exactly what a test puts in it. */
    private static final class FixedView implements LeaderView {
        private final Map<Partition, PartitionLeader> leaders = new HashMap<>();
        private final Map<Integer, Endpoint> endpoints = new HashMap<>();

        FixedView leader(Partition partition, int leaderId, int epoch) {
            leaders.put(partition, new PartitionLeader(leaderId, epoch));
            return this;
        }

        FixedView endpoint(Endpoint endpoint) {
            endpoints.put(endpoint.nodeId(), endpoint);
            return this;
        }

        @Override
        public Optional<PartitionLeader> leader(Partition partition) {
            return Optional.ofNullable(leaders.get(partition));
        }

        @Override
        public Optional<Endpoint> advertisedEndpoint(int nodeId) {
            return Optional.ofNullable(endpoints.get(nodeId));
        }
    }

    @Test
    void hintsTheNewerLeaderAtTheAddressTheProxyAdvertisesForIt() {
        FixedView view = new FixedView().leader(PARTITION, 2, 7).endpoint(PROXY_FOR_NODE_2);

        assertThat(HintResolver.resolve(PARTITION, 6, 1, view))
            .contains(new LeaderHint(new PartitionLeader(2, 7), PROXY_FOR_NODE_2));
    }

    @Test
    void hintsWhenTheClientKnowsNoEpochAndTheRefusingBrokerIsUnknown() {
        FixedView view = new FixedView().leader(PARTITION, 2, 0).endpoint(PROXY_FOR_NODE_2);

        assertThat(HintResolver.resolve(PARTITION, HintResolver.UNKNOWN, HintResolver.UNKNOWN, view)).isPresent();
    }

    @Test
    void noHintAtTheEpochTheClientAlreadyKnows() {
        FixedView view = new FixedView().leader(PARTITION, 2, 7).endpoint(PROXY_FOR_NODE_2);

        assertThat(HintResolver.resolve(PARTITION, 7, 1, view)).isEmpty();
    }

    @Test
    void noHintOlderThanTheEpochTheClientKnows() {
        FixedView view = new FixedView().leader(PARTITION, 2, 6).endpoint(PROXY_FOR_NODE_2);

        assertThat(HintResolver.resolve(PARTITION, 7, 1, view)).isEmpty();
    }

    @Test
    void noHintPointingBackAtTheBrokerThatRefused() {
        FixedView view = new FixedView().leader(PARTITION, 2, 7).endpoint(PROXY_FOR_NODE_2);

        assertThat(HintResolver.resolve(PARTITION, 6, 2, view)).isEmpty();
    }

    @Test
    void noHintForALeaderWhoseAddressTheProxyHasNotAdvertised() {
        FixedView view = new FixedView().leader(PARTITION, 2, 7).endpoint(new Endpoint(1, "proxy.example", 9093, null));

        assertThat(HintResolver.resolve(PARTITION, 6, 1, view)).isEmpty();
    }

    @Test
    void noHintForAPartitionTheViewDoesNotKnow() {
        FixedView view = new FixedView().leader(new Partition("orders", 4), 2, 7).endpoint(PROXY_FOR_NODE_2);

        assertThat(HintResolver.resolve(PARTITION, 6, 1, view)).isEmpty();
    }

    @Test
    void noHintForALeaderWithoutAnEpoch() {
        FixedView view = new FixedView().leader(PARTITION, 2, HintResolver.UNKNOWN).endpoint(PROXY_FOR_NODE_2);

        assertThat(HintResolver.resolve(PARTITION, HintResolver.UNKNOWN, 1, view)).isEmpty();
    }

    @Test
    void noHintForAPartitionWithoutALeader() {
        FixedView view = new FixedView().leader(PARTITION, HintResolver.UNKNOWN, 7).endpoint(PROXY_FOR_NODE_2);

        assertThat(HintResolver.resolve(PARTITION, 6, 1, view)).isEmpty();
    }
}
