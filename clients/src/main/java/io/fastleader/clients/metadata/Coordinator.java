package io.fastleader.clients.metadata;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.Failures;
import io.fastleader.clients.network.VersionedRequest;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.FindCoordinatorRequestData;
import io.fastleader.protocol.message.FindCoordinatorResponseData;

/**
 * Where a group's or a transactional id's coordinator is: found with FindCoordinator, remembered
 * until a request to it says it moved (or its connection breaks), then found again by the next
 * caller, at once: an answer that says "not here" needs no backoff before the lookup. One lookup
 * at a time serves every caller waiting for it.
 *
 * <p>Confined to its owner: every call and every answer runs on the {@code owner} executor given at
 * construction (the consumer's state owner, the producer's sender); nothing blocks.
 */
public final class Coordinator {

    /** The node id of a coordinator not known. */
    public static final int UNKNOWN = -1;

    private static final Logger LOG = LoggerFactory.getLogger(Coordinator.class);
    /** FindCoordinator v4 batched the keys into {@code CoordinatorKeys}. */
    private static final short FIRST_BATCHED_VERSION = 4;

    /** What a coordinator coordinates, as FindCoordinator's {@code KeyType} names it. */
    public enum KeyType {
        /** A consumer group, keyed by its {@code group.id}. */
        GROUP((byte) 0),
        /** A transactional producer, keyed by its {@code transactional.id}. */
        TRANSACTION((byte) 1);

        private final byte id;

        KeyType(byte id) {
            this.id = id;
        }
    }

    private final ConnectionPool pool;
    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final KeyType type;
    private final String key;
    private final Executor owner;
    private int coordinator = UNKNOWN;
    /** The coordinator last found gone: the next lookup asks another broker first, since this one may be stopping. */
    private int gone = UNKNOWN;
    private CompletableFuture<Integer> lookup;
    private int lookupFailures;

    /**
     * @param owner runs the answers of lookups, and is the only thread that calls this
     */
    public Coordinator(ConnectionPool pool, ClusterMetadata metadata, KeyType type, String key, Executor owner) {
        this.pool = Objects.requireNonNull(pool, "pool");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.cache = metadata.cache();
        this.type = Objects.requireNonNull(type, "type");
        this.key = Objects.requireNonNull(key, "key");
        this.owner = Objects.requireNonNull(owner, "owner");
    }

    /** The group id or transactional id this is the coordinator of. */
    public String key() {
        return key;
    }

    /**
     * The coordinator's node id, found first if it is not known. Fails with the FindCoordinator
     * error, retriable or not ({@link GroupAuthorizationException} for a group, with the group's id);
     * the caller decides when to ask again.
     */
    public CompletableFuture<Integer> find() {
        if (coordinator != UNKNOWN) {
            return CompletableFuture.completedFuture(coordinator);
        }
        if (lookup != null) {
            return lookup;
        }
        CompletableFuture<Integer> found = new CompletableFuture<>();
        lookup = found;
        int asked = brokerToAsk(cache.nodes().keySet(), lookupFailures, gone);
        pool.send(asked, ApiKey.FIND_COORDINATOR, request(type, key))
                .whenCompleteAsync((response, error) -> answered(asked, found, response, error), owner);
        return found;
    }

    /** Forgets {@code nodeId} as the coordinator, if it still is the one known: the next {@link #find} asks again. */
    public void forget(int nodeId) {
        if (coordinator == nodeId) {
            coordinator = UNKNOWN;
            gone = nodeId;
        }
    }

    /** FindCoordinator for one key, in the batched layout (v4+) or the single one. */
    static VersionedRequest request(KeyType type, String key) {
        return version -> {
            FindCoordinatorRequestData request = new FindCoordinatorRequestData().setKeyType(type.id);
            return version >= FIRST_BATCHED_VERSION ? request.setCoordinatorKeys(List.of(key)) : request.setKey(key);
        };
    }

    /** What FindCoordinator answered for one key: its coordinator's node id, or why none. */
    record Answer(int nodeId, ErrorCode error, String message) {
    }

    /** The answer for {@code key}, in the batched layout (v4+) or the single one. */
    static Answer answerFor(FindCoordinatorResponseData response, String key) {
        if (response.coordinators().isEmpty()) {
            return new Answer(response.nodeId(), ErrorCode.forCode(response.errorCode()), response.errorMessage());
        }
        for (FindCoordinatorResponseData.Coordinator answer : response.coordinators()) {
            if (key.equals(answer.key())) {
                return new Answer(answer.nodeId(), ErrorCode.forCode(answer.errorCode()), answer.errorMessage());
            }
        }
        return new Answer(UNKNOWN, ErrorCode.COORDINATOR_NOT_AVAILABLE, "the FindCoordinator response did not name " + key);
    }

    private void answered(int asked, CompletableFuture<Integer> found, ApiMessage response, Throwable error) {
        lookup = null;
        Throwable failure = Failures.cause(error);
        if (failure == null) {
            failure = failureOf((FindCoordinatorResponseData) response);
        }
        if (failure != null) {
            lookupFailures++;
            LOG.debug("FindCoordinator for {} {} to node {} failed", type, key, asked, failure);
            found.completeExceptionally(failure);
            return;
        }
        lookupFailures = 0;
        LOG.debug("{} {} is coordinated by node {}", type, key, coordinator);
        found.complete(coordinator);
    }

    /** Takes the answer's coordinator, or says why there is none. */
    private RuntimeException failureOf(FindCoordinatorResponseData response) {
        Answer answer = answerFor(response, key);
        if (answer.error() == ErrorCode.GROUP_AUTHORIZATION_FAILED) {
            return GroupAuthorizationException.forGroupId(key);
        }
        if (answer.error() != ErrorCode.NONE) {
            String message = answer.message();
            return message == null || message.isEmpty() ? answer.error().exception() : answer.error().exception(message);
        }
        if (cache.node(answer.nodeId()) == null) {
            // Known only once a Metadata response lists it; a refresh of no topic still lists every broker.
            metadata.onLeaderError(List.of());
            return new CoordinatorNotAvailableException("the coordinator of " + type + " " + key + ", node "
                    + answer.nodeId() + ", is not in the client's metadata yet");
        }
        coordinator = answer.nodeId();
        return null;
    }

    /**
     * A broker to ask for the coordinator: the known ones in turn, one more with each failed lookup,
     * skipping {@code gone} (the coordinator just found gone, likely stopping) while another is
     * known; the first bootstrap server while none is known.
     */
    static int brokerToAsk(Collection<Integer> nodes, int failures, int gone) {
        List<Integer> candidates = new ArrayList<>(new TreeSet<>(nodes));
        if (candidates.size() > 1) {
            candidates.remove(Integer.valueOf(gone));
        }
        return candidates.isEmpty() ? UNKNOWN : candidates.get(failures % candidates.size());
    }
}
