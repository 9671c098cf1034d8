/**
 * A consumer's group, behind {@link io.fastleader.clients.consumer.group.ConsumerGroup}: membership
 * under the consumer group protocol (KIP-848), reconciliation of the coordinator's assignments,
 * heartbeats, the coordinator's lookup, and the group's committed offsets.
 *
 * <p>{@code GroupMembership} is the state machine (pure, clock-driven); {@code GroupHeartbeats}
 * sends what it asks to the coordinator {@code GroupCoordinator} finds; {@code GroupReconciler}
 * resolves target assignments, runs the listener's callbacks and changes the consumer's assignment
 * through {@code Assignee}; {@code GroupOffsets} commits and reads offsets. Errors are classified
 * once, in {@code GroupErrorKind} and {@code HeartbeatErrorKind}.
 */
package io.fastleader.clients.consumer.group;
