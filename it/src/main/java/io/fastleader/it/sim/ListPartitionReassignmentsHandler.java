package io.fastleader.it.sim;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * ListPartitionReassignments: always none in progress, since AlterPartitionReassignments completes
 * every move before it answers. Partitions asked for that do not exist are left out, as a
 * broker leaves them out.
 */
final class ListPartitionReassignmentsHandler implements RequestHandler {

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        return CompletableFuture.completedFuture(new ListPartitionReassignmentsResponseData().setErrorCode(ErrorCode.NONE.code()));
    }
}
