/**
 * {@link io.fastleader.clients.consumer.FastLeaderConsumer}: a {@code Consumer}, of a group or of
 * assigned partitions, that follows a moved leader on the next Fetch.
 *
 * <p>Which thread runs what:
 * <ul>
 *   <li>The state owner, {@code ConsumerThread}, is a role held by one thread at a time, under
 *       which every change to the consumer's state runs, one task at a time: the assignment and
 *       each partition's {@code PartitionState} in {@code SubscriptionState}, the records
 *       {@code Fetcher} buffers and decodes (deserializers run here), {@code PositionResolver}'s
 *       lookups, {@code OffsetLookup}, and the whole group (membership, reconciliation,
 *       heartbeats, coordinator, commits) behind {@code ConsumerGroup}. Its timers (heartbeats,
 *       retries, deadlines) fire under it.</li>
 *   <li>The application's thread holds the role for the length of each call
 *       ({@code ApplicationCalls}: one thread at a time, {@code wakeup()}, interrupts): the call,
 *       and the answers and timers that come while it waits, run there, so a {@code poll} that
 *       finds records buffered crosses no thread. The rebalance listener's callbacks (and the
 *       auto-commit before revoking), commit callbacks and interceptors run there too, the
 *       listener's with the role let go so that heartbeats go on; a call they make runs as a call
 *       of its own.</li>
 *   <li>Between calls the owner's thread ({@code fastleader-consumer-<client.id>}) takes the role
 *       whenever there is work: answers, heartbeats, auto-commit. Where a task of its waits for a
 *       callback on the application's thread, the application's next call is handed to it and
 *       run in the middle of the waiting task.</li>
 *   <li>Network threads only hand answers to the role's holder ({@code whenCompleteAsync(...,
 *       owner)} or the inbox executor); no consumer state is touched on them.</li>
 * </ul>
 *
 * <p>Each concern has its own class. {@code FastLeaderConsumer} is the façade: it validates
 * arguments and delegates, on the owner, to {@code PollLoop} (the waits of {@code poll} and
 * {@code position}), {@code Assignment} ({@code assign}, {@code subscribe}, seeks),
 * {@code Commits}, {@code AutoCommit}, {@code ClusterQueries} (ListOffsets and Metadata for the
 * application) and {@code OptionalGroup} (the group, when there is a {@code group.id}, and whether
 * the consumer is in it); the overloads that only fill in a default are in
 * {@code ConsumerDefaults}. Below them: {@code Fetcher} (Fetch requests and answers, records
 * buffered between polls), {@code PartitionRecords} (decoding one partition's batches),
 * {@code PositionResolver} (committed offsets, resets, OffsetsForLeaderEpoch validation). Leader
 * moves go through the metadata package, as for the producer ({@code LeaderMoves},
 * {@code ClusterMetadata.onLeaderMoves}, {@code EpochBackoff}). Errors are classified once, in
 * {@code FetchErrorKind} and {@code ListOffsetsErrorKind}.
 *
 * <p>The group ({@code subscribe}, commits, committed offsets) is behind one type,
 * {@link io.fastleader.clients.consumer.group.ConsumerGroup}, in its own package.
 */
package io.fastleader.clients.consumer;
