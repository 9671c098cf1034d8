package io.fastleader.clients.consumer.group;

import java.util.Optional;

/**
 * Who commits offsets for a group: a member of it (its id, its epoch under the consumer group
 * protocol, its {@code group.instance.id} if static), or a consumer outside it.
 *
 * @param memberId   empty outside the group
 * @param epoch      the member epoch; -1 outside the group
 * @param instanceId {@code group.instance.id} of a static member
 */
record MemberIdentity(String memberId, int epoch, Optional<String> instanceId) {

    /** The generation (member epoch) field of a commit made outside the group, or by a member that left it. */
    static final int NO_EPOCH = -1;

    /** A consumer that assigns its own partitions: generation -1, no member id, no instance id. */
    static final MemberIdentity OUTSIDE_THE_GROUP = new MemberIdentity("", NO_EPOCH, Optional.empty());

    boolean isMember() {
        return !memberId.isEmpty() && epoch >= 0;
    }
}
