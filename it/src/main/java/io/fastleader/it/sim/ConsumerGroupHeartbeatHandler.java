package io.fastleader.it.sim;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * ConsumerGroupHeartbeat, v0-v1 (KIP-848 consumer protocol): see {@link ConsumerGroup#heartbeat}.
 * At v0 the coordinator gives a joining member its id; from v1 the member brings its own.
 * Static membership is not simulated: a request naming an instance id is a
 * {@link RequestDispatcher.ProtocolViolation}, which closes the connection.
 */
final class ConsumerGroupHeartbeatHandler implements RequestHandler {

    private final GroupCoordinator coordinator;

    ConsumerGroupHeartbeatHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        ConsumerGroupHeartbeatRequestData data = (ConsumerGroupHeartbeatRequestData) request;
        if (data.instanceId() != null) {
            throw new RequestDispatcher.ProtocolViolation("ConsumerGroupHeartbeat with instance id " + data.instanceId()
                + ": static membership is not simulated yet");
        }
        return CompletableFuture.completedFuture(coordinator.consumerGroupHeartbeat(context.brokerId(), data, context.version()));
    }
}
