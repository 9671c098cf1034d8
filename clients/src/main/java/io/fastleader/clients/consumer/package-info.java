/**
 * {@link io.fastleader.clients.consumer.FastLeaderConsumer}: a {@code Consumer} for assigned
 * partitions that follows a moved leader on the next Fetch.
 *
 * <p>One thread does the consumer's work, the one calling it: transport threads only queue answers
 * ({@code EventInbox}) and {@code poll} applies them, so the state below has one writer and no lock.
 * Each concern has its own class: {@code PartitionState} (a partition's position and phase, the
 * backoff rule), {@code Fetcher} (Fetch requests and answers, records buffered between polls),
 * {@code PartitionRecords} (decoding one partition's batches), {@code PositionResolver}
 * (committed offsets, resets, OffsetsForLeaderEpoch validation), {@code OffsetLookup}
 * (ListOffsets) and {@code GroupOffsets} (coordinator, commits). Errors are classified once, in
 * {@code FetchErrorKind}, {@code ListOffsetsErrorKind} and {@code GroupErrorKind}.
 */
package io.fastleader.clients.consumer;
