package io.fastleader.clients.producer.transaction;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

import org.apache.kafka.common.protocol.ApiMessage;

import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.Coordinator;
import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.Failures;
import io.fastleader.clients.producer.transaction.Transactions.Step;

/**
 * The I/O edge of {@link Transactions}: sends each of its requests to the coordinator that takes
 * it (the transaction coordinator, or a group's for TxnOffsetCommit), found first if need be, and
 * hands the answer back on the owner's thread. Reads the cluster's finalized
 * {@code transaction.version} from the transaction coordinator's connection on the way.
 *
 * <p>Confined to its owner, the producer's sender: every call and every answer runs there.
 */
public final class CoordinatorLink {

    /** The feature that says which transaction protocol the cluster speaks. */
    static final String TRANSACTION_VERSION = "transaction.version";

    private final ConnectionPool pool;
    private final ClusterMetadata metadata;
    private final Transactions transactions;
    private final Executor owner;
    private final LongSupplier clockMs;
    private final Coordinator transactionCoordinator;
    private final Map<String, Coordinator> groupCoordinators = new HashMap<>();

    /**
     * @param owner   runs every answer; the sender's event queue, which also wakes its loop
     * @param clockMs the sender's monotonic clock
     */
    public CoordinatorLink(ConnectionPool pool, ClusterMetadata metadata, Transactions transactions, Executor owner,
                           LongSupplier clockMs) {
        this.pool = pool;
        this.metadata = metadata;
        this.transactions = transactions;
        this.owner = owner;
        this.clockMs = clockMs;
        this.transactionCoordinator = new Coordinator(pool, metadata, Coordinator.KeyType.TRANSACTION,
                transactions.transactionalId(), owner);
    }

    /** Sends {@code step} (the one {@link Transactions#nextStep} just gave) to its coordinator. */
    public void send(Step step) {
        Coordinator coordinator = step.groupId() == null ? transactionCoordinator
                : groupCoordinators.computeIfAbsent(step.groupId(),
                        group -> new Coordinator(pool, metadata, Coordinator.KeyType.GROUP, group, owner));
        coordinator.find().whenCompleteAsync((node, lookupError) -> {
            if (lookupError != null) {
                transactions.lookupFailed(step, Failures.cause(lookupError), clockMs.getAsLong());
                return;
            }
            pool.versions(node).whenCompleteAsync((versions, connectError) -> {
                if (connectError != null) {
                    answered(step, coordinator, node, null, connectError);
                    return;
                }
                if (coordinator == transactionCoordinator) {
                    transactions.clusterTransactionVersion(versions.finalizedLevel(TRANSACTION_VERSION));
                }
                pool.send(node, step.api(), step.highestVersion(), step.request())
                        .whenCompleteAsync((response, error) -> answered(step, coordinator, node, response, error), owner);
            }, owner);
        }, owner);
    }

    private void answered(Step step, Coordinator coordinator, int node, ApiMessage response, Throwable error) {
        if (transactions.answered(step, response, Failures.cause(error), clockMs.getAsLong())) {
            coordinator.forget(node);
        }
    }
}
