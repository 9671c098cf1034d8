/**
 * A consumer's group, behind {@link io.fastleader.clients.consumer.group.ConsumerGroup}: what the
 * application subscribed to, membership under the classic protocol or the consumer group protocol
 * (KIP-848), the coordinator's lookup, and the group's committed offsets.
 *
 * <p>{@code GroupSubscription} holds the subscription and hands its changes to the protocol's
 * {@code GroupMember}; {@code RebalanceCallbacks} changes the consumer's assignment through
 * {@code Assignee} around the listener's callbacks, for both. Under the consumer group protocol
 * {@code GroupMembership} is the state machine (pure, clock-driven), {@code GroupHeartbeats} sends
 * what it asks and {@code GroupReconciler} resolves the coordinator's target assignments; under the
 * classic one {@code ClassicMembership} is the state machine and {@code ClassicMember} sends its
 * requests and runs the assignors. {@link io.fastleader.clients.metadata.Coordinator} finds the
 * coordinator for all of them; {@code GroupOffsets} commits and reads offsets. Errors are classified once, in
 * {@code GroupErrorKind}, {@code HeartbeatErrorKind} and {@code ClassicErrorKind}.
 */
package io.fastleader.clients.consumer.group;
