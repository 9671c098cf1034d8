/**
 * A simulated Kafka cluster in the test's JVM ({@link io.fastleader.it.sim.SimulatedCluster}):
 * brokers on loopback ports that real clients talk to, partitions in memory, leaders moved and
 * faults caused on command. The network side ({@code NetworkServer}: one selector thread for every
 * broker and connection), the decoding and routing ({@code RequestDispatcher}), the faults and the
 * one place they apply ({@code Faults}, {@code ErrorAnswers}), the request log ({@code RequestLog}),
 * one handler per RPC and the state they share under one lock ({@code ClusterState},
 * {@code PartitionLog}, {@code ProducerSequences}) are each a class of their own. A Fetch that
 * waits for records holds no thread: it waits in {@code FetchWaiters}, and the cluster's timer
 * thread ({@code Scheduler}) answers it when a record or a leader move reaches one of its
 * partitions, or when its wait runs out. Group coordination has a lock of its own
 * ({@code GroupCoordinator}, with {@code ClassicGroup} and {@code ConsumerGroup} for the two group
 * protocols), and a JoinGroup or SyncGroup that waits for other members holds no thread either.
 * {@code it/README.md} says what is simulated, how far it scales and where it differs from a
 * broker.
 */
package io.fastleader.it.sim;
