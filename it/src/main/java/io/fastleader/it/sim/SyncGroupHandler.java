package io.fastleader.it.sim;

import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * SyncGroup, v0-v5 (classic protocol): see {@link ClassicGroup#sync}. A follower's answer comes
 * when the leader's SyncGroup hands out the assignments; the connection serves nothing else
 * meanwhile.
 */
final class SyncGroupHandler implements RequestHandler {

    private final GroupCoordinator coordinator;

    SyncGroupHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        return coordinator.sync(context.brokerId(), (SyncGroupRequestData) request).thenApply(ApiMessage.class::cast);
    }
}
