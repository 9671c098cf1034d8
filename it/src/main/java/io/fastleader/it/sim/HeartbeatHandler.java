package io.fastleader.it.sim;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.message.HeartbeatRequestData;
import io.fastleader.protocol.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Heartbeat, v0-v4 (classic protocol): restarts the member's session; REBALANCE_IN_PROGRESS
 * while the group waits for its members to join again, ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID
 * for a member that must join again.
 */
final class HeartbeatHandler implements RequestHandler {

    private final GroupCoordinator coordinator;

    HeartbeatHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        HeartbeatRequestData data = (HeartbeatRequestData) request;
        return CompletableFuture.completedFuture(new HeartbeatResponseData().setErrorCode(
            coordinator.heartbeat(context.brokerId(), data.groupId(), data.memberId(), data.generationId()).code()));
    }
}
