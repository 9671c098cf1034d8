package io.fastleader.it.sim;

import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.message.JoinGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * JoinGroup, v2-v9 (classic protocol): see {@link ClassicGroup#join}. The answer of a member
 * that must wait for the others comes when the rebalance completes; the connection serves
 * nothing else meanwhile. Static membership is not simulated: a request naming a
 * {@code group.instance.id} is a {@link RequestDispatcher.ProtocolViolation}, which closes the
 * connection.
 */
final class JoinGroupHandler implements RequestHandler {

    private final GroupCoordinator coordinator;

    JoinGroupHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        JoinGroupRequestData data = (JoinGroupRequestData) request;
        if (data.groupInstanceId() != null) {
            throw new RequestDispatcher.ProtocolViolation("JoinGroup with group.instance.id " + data.groupInstanceId()
                + ": static membership is not simulated yet");
        }
        return coordinator.join(context.brokerId(), data, context.version(), context.clientId()).thenApply(ApiMessage.class::cast);
    }
}
