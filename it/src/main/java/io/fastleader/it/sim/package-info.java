/**
 * A simulated Kafka cluster in the test's JVM ({@link io.fastleader.it.sim.SimulatedCluster}):
 * brokers on loopback ports that real clients talk to, partitions in memory, leaders moved on
 * command. The network side ({@code BrokerServer}: a thread per connection), the decoding and
 * routing ({@code RequestDispatcher}), one handler per RPC and the state they share under one
 * lock ({@code ClusterState}, {@code PartitionLog}, {@code ProducerSequences}) are each a class of
 * their own. A Fetch that waits for records holds no thread: it waits in {@code FetchWaiters},
 * and the cluster's one timer thread ({@code Scheduler}) answers it when a record or a leader move
 * reaches one of its partitions, or when its wait runs out. Group coordination has a lock of its
 * own ({@code GroupCoordinator}, with {@code ClassicGroup} and {@code ConsumerGroup} for the two
 * group protocols), and a JoinGroup or SyncGroup that waits for other members holds no thread
 * either. {@code it/README.md} says what is simulated and where it differs from a broker.
 */
package io.fastleader.it.sim;
