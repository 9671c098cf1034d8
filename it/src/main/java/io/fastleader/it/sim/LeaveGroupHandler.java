package io.fastleader.it.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.LeaveGroupRequestData;
import io.fastleader.protocol.message.LeaveGroupRequestData.MemberIdentity;
import io.fastleader.protocol.message.LeaveGroupResponseData;
import io.fastleader.protocol.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * LeaveGroup, v0-v5 (classic protocol): each member named leaves, and the others rebalance. Up
 * to v2 one member and its outcome as the error; from v3 a batch, each member answered on its
 * own under a top-level NONE (NOT_COORDINATOR is top-level). Members are named by member id:
 * static membership is not simulated, so a member named only by group instance id is
 * UNKNOWN_MEMBER_ID.
 */
final class LeaveGroupHandler implements RequestHandler {

    private final GroupCoordinator coordinator;

    LeaveGroupHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        LeaveGroupRequestData data = (LeaveGroupRequestData) request;
        LeaveGroupResponseData response = new LeaveGroupResponseData();
        if (context.version() < 3) {
            ErrorCode error = coordinator.leave(context.brokerId(), data.groupId(), List.of(data.memberId())).get(0);
            return CompletableFuture.completedFuture(response.setErrorCode(error.code()));
        }
        List<String> memberIds = data.members().stream().map(MemberIdentity::memberId).toList();
        List<ErrorCode> errors = coordinator.leave(context.brokerId(), data.groupId(), memberIds);
        if (errors.contains(ErrorCode.NOT_COORDINATOR)) {
            return CompletableFuture.completedFuture(response.setErrorCode(ErrorCode.NOT_COORDINATOR.code()));
        }
        List<MemberResponse> members = new ArrayList<>();
        for (int i = 0; i < memberIds.size(); i++) {
            MemberIdentity member = data.members().get(i);
            members.add(new MemberResponse()
                .setMemberId(member.memberId())
                .setGroupInstanceId(member.groupInstanceId())
                .setErrorCode(errors.get(i).code()));
        }
        return CompletableFuture.completedFuture(response.setMembers(members));
    }
}
