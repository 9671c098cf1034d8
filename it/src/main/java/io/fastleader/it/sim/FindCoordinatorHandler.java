package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.FindCoordinatorRequestData;
import io.fastleader.protocol.message.FindCoordinatorResponseData;
import io.fastleader.protocol.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * FindCoordinator, v0-v6: for a group key, the broker {@link GroupCoordinator} places the group
 * on, from any broker; v4+ answers each of a batch of keys. Transactions are not simulated, so a
 * transaction key is answered COORDINATOR_NOT_AVAILABLE (a client retries it until its own
 * timeout, as against a cluster whose {@code __transaction_state} has no leader); any other key
 * type (share groups) INVALID_REQUEST.
 */
final class FindCoordinatorHandler implements RequestHandler {

    private static final byte GROUP = 0;
    private static final byte TRANSACTION = 1;

    private final ClusterState state;
    private final GroupCoordinator coordinator;

    FindCoordinatorHandler(ClusterState state, GroupCoordinator coordinator) {
        this.state = state;
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        FindCoordinatorRequestData data = (FindCoordinatorRequestData) request;
        FindCoordinatorResponseData response = new FindCoordinatorResponseData();
        if (context.version() >= 4) {
            List<Coordinator> coordinators = new ArrayList<>();
            for (String key : data.coordinatorKeys()) {
                coordinators.add(find(data.keyType(), key));
            }
            response.setCoordinators(coordinators);
        } else {
            Coordinator found = find(data.keyType(), data.key());
            response.setErrorCode(found.errorCode())
                .setErrorMessage(found.errorMessage())
                .setNodeId(found.nodeId())
                .setHost(found.host())
                .setPort(found.port());
        }
        return CompletableFuture.completedFuture(response);
    }

    private Coordinator find(byte keyType, String key) {
        Coordinator answer = new Coordinator().setKey(key).setNodeId(-1).setHost("").setPort(-1);
        if (keyType == TRANSACTION) {
            return answer.setErrorCode(ErrorCode.COORDINATOR_NOT_AVAILABLE.code())
                .setErrorMessage("transactions are not simulated");
        }
        if (keyType != GROUP) {
            return answer.setErrorCode(ErrorCode.INVALID_REQUEST.code())
                .setErrorMessage("coordinator key type " + keyType + " is not simulated");
        }
        ClusterState.Endpoint endpoint = state.broker(coordinator.coordinatorOf(key)).orElseThrow();
        return answer.setNodeId(endpoint.brokerId()).setHost(endpoint.host()).setPort(endpoint.port());
    }
}
