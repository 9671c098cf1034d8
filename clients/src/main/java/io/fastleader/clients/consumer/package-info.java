/**
 * {@link io.fastleader.clients.consumer.FastLeaderConsumer}: a {@code Consumer}, of a group or of
 * assigned partitions, that follows a moved leader on the next Fetch.
 *
 * <p>The consumer's work is done on the thread that calls it. {@code SubscriptionState} owns the
 * assigned partitions and each one's {@code PartitionState} (position, pause, phase, backoff);
 * {@code Fetcher} and {@code PositionResolver} ask it, and only the consumer's thread touches
 * them. Transport threads only queue answers ({@code EventInbox}), which {@code poll} applies.
 * {@code OffsetLookup} (ListOffsets) and the group's offsets (coordinator, commits) are
 * thread-safe request loops: they synchronize on their own state, run on transport threads and
 * the JDK's delay thread, and hand their results back through futures that the consumer's thread
 * takes up via the inbox.
 *
 * <p>Each concern has its own class: {@code Fetcher} (Fetch requests and answers, records buffered
 * between polls), {@code PartitionRecords} (decoding one partition's batches),
 * {@code PositionResolver} (committed offsets, resets, OffsetsForLeaderEpoch validation). Leader
 * moves go through the metadata package, as for the producer ({@code LeaderMoves},
 * {@code ClusterMetadata.onLeaderMoves}, {@code EpochBackoff}). Errors are classified once, in
 * {@code FetchErrorKind} and {@code ListOffsetsErrorKind}.
 *
 * <p>The group ({@code subscribe}, commits, committed offsets) is behind one type,
 * {@link io.fastleader.clients.consumer.group.ConsumerGroup}, in its own package.
 */
package io.fastleader.clients.consumer;
