package io.fastleader.clients.consumer.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.GroupRequests.Coordinator;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.Failures;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.FindCoordinatorResponseData;

/**
 * Where a group's coordinator is: found with FindCoordinator, remembered until a request to it says
 * it moved (or its connection breaks), then found again by the next caller, at once. Shared by the
 * group's offset calls and its heartbeats, so one discovery serves both.
 *
 * <p>Runs on the consumer's state owner, answers included; nothing blocks.
 */
final class GroupCoordinator {

    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinator.class);
    static final int UNKNOWN = -1;

    private final ConnectionPool pool;
    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final String groupId;
    private final StateOwner owner;
    private int coordinator = UNKNOWN;
    private CompletableFuture<Integer> discovery;
    private int discoveryFailures;

    GroupCoordinator(ConnectionPool pool, ClusterMetadata metadata, String groupId, StateOwner owner) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.owner = Objects.requireNonNull(owner, "owner");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.cache = metadata.cache();
        this.groupId = Objects.requireNonNull(groupId, "groupId");
    }

    String groupId() {
        return groupId;
    }

    /**
     * The coordinator's node id, found first if it is not known; one FindCoordinator at a time
     * serves every caller waiting. Fails with the FindCoordinator error, retriable or not; the
     * caller decides when to ask again.
     */
    CompletableFuture<Integer> find() {
        if (coordinator != UNKNOWN) {
            return CompletableFuture.completedFuture(coordinator);
        }
        if (discovery != null) {
            return discovery;
        }
        CompletableFuture<Integer> found = new CompletableFuture<>();
        discovery = found;
        int asked = anyBroker();
        pool.send(asked, ApiKey.FIND_COORDINATOR, GroupRequests.findCoordinator(groupId))
                .whenCompleteAsync((response, error) -> discovered(asked, found, response, error), owner);
        return found;
    }

    /** Forgets {@code nodeId} as the coordinator, if it still is the one known: the next {@link #find} asks again. */
    void forget(int nodeId) {
        if (coordinator == nodeId) {
            coordinator = UNKNOWN;
        }
    }

    private void discovered(int asked, CompletableFuture<Integer> found, ApiMessage response, Throwable error) {
        Throwable failure = Failures.cause(error);
        int nodeId = UNKNOWN;
        if (failure == null) {
            Coordinator answer = GroupRequests.coordinator((FindCoordinatorResponseData) response, groupId);
            if (GroupErrorKind.ofFindCoordinator(answer.error()) != GroupErrorKind.NONE) {
                failure = GroupErrorKind.exception(answer.error(), answer.message(), groupId, null, Set.of());
            } else if (cache.node(answer.nodeId()) == null) {
                // Known only once a Metadata response lists it; a refresh of no topic still lists every broker.
                metadata.onLeaderError(List.of());
                failure = new CoordinatorNotAvailableException("the coordinator of group " + groupId + ", node "
                        + answer.nodeId() + ", is not in the client's metadata yet");
            } else {
                nodeId = answer.nodeId();
            }
        }
        discovery = null;
        if (failure == null) {
            coordinator = nodeId;
            discoveryFailures = 0;
        } else {
            discoveryFailures++;
        }
        if (failure == null) {
            LOG.debug("Group {} is coordinated by node {}", groupId, nodeId);
            found.complete(nodeId);
        } else {
            LOG.debug("FindCoordinator for group {} to node {} failed", groupId, asked, failure);
            found.completeExceptionally(failure);
        }
    }

    /** A broker to ask for the coordinator: the known ones in turn, the first bootstrap server while none is known. */
    private int anyBroker() {
        List<Integer> nodes = new ArrayList<>(new TreeSet<>(cache.nodes().keySet()));
        return nodes.isEmpty() ? UNKNOWN : nodes.get(discoveryFailures % nodes.size());
    }
}
