/**
 * A transactional producer's side of transactions, as {@code KafkaProducer} 4.3 has them, over
 * either transaction protocol the cluster finalizes ({@code transaction.version} 1 or 2).
 *
 * <p>{@code Transactions} is the state machine (pure, clock-driven): the producer's
 * {@code TransactionState}, the transaction open now, and the queue of requests to coordinators,
 * sent one at a time. {@code CoordinatorLink} is its I/O edge: it finds each request's coordinator
 * ({@link io.fastleader.clients.metadata.Coordinator}), sends the request and hands the answer
 * back. {@code TransactionRequests} is the wire, {@code TransactionErrorKind} classifies every
 * error of every transactional RPC once, and {@code TransactionCall} is an application call
 * waited for at most {@code max.block.ms} and resumable after that.
 *
 * <p>Threads: the producer's sender thread owns all of it. The application's calls are handed to
 * that thread ({@code Sender.call}) and wait for their {@code TransactionCall}; {@code checkSend},
 * run by the sending thread, only reads the state and hands the partition over through a queue.
 */
package io.fastleader.clients.producer.transaction;
