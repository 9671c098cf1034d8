package io.fastleader.it.sim;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * InitProducerId for idempotent producers (both clients' default): a fresh producer id at epoch 0
 * from any broker. Transactional ids are not simulated yet; sequence numbers are not checked.
 */
final class InitProducerIdHandler implements RequestHandler {

    private final ClusterState state;

    InitProducerIdHandler(ClusterState state) {
        this.state = state;
    }

    @Override
    public ApiMessage handle(RequestContext context, ApiMessage request) {
        return new InitProducerIdResponseData()
            .setErrorCode(ErrorCode.NONE.code())
            .setProducerId(state.nextProducerId())
            .setProducerEpoch((short) 0);
    }
}
