package io.fastleader.it.sim;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.InitProducerIdRequestData;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * InitProducerId for idempotent producers (both clients' default): a fresh producer id at epoch 0
 * from any broker; each partition then checks its sequences ({@link ProducerSequences}). A
 * request with a transactional id is a {@link RequestDispatcher.ProtocolViolation}, which closes
 * the connection: transactions are not simulated yet.
 */
final class InitProducerIdHandler implements RequestHandler {

    private final ClusterState state;

    InitProducerIdHandler(ClusterState state) {
        this.state = state;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        String transactionalId = ((InitProducerIdRequestData) request).transactionalId();
        if (transactionalId != null) {
            throw new RequestDispatcher.ProtocolViolation("InitProducerId for transactional id " + transactionalId
                + ": transactions are not simulated yet");
        }
        return CompletableFuture.completedFuture(new InitProducerIdResponseData()
            .setErrorCode(ErrorCode.NONE.code())
            .setProducerId(state.nextProducerId())
            .setProducerEpoch((short) 0));
    }
}
