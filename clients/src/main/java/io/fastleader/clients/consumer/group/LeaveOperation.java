package io.fastleader.clients.consumer.group;

/**
 * What a member does about its group when the consumer closes or unsubscribes: kafka-clients'
 * {@code CloseOptions.GroupMembershipOperation} (4.1+), here for every release.
 */
public enum LeaveOperation {
    /** The protocol's default: a dynamic member leaves; a static one keeps its place for its session timeout. */
    DEFAULT,
    /** Leave the group, a static member too. */
    LEAVE_GROUP,
    /**
     * Stay in the group until the session times out: a classic member sends no LeaveGroup. Under the
     * consumer group protocol a dynamic member leaves anyway, as {@code KafkaConsumer}'s: it has no way to stay.
     */
    REMAIN_IN_GROUP
}
