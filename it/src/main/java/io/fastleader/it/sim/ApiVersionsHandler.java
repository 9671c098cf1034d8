package io.fastleader.it.sim;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import io.fastleader.protocol.message.ApiVersionsResponseData;
import io.fastleader.protocol.message.ApiVersionsResponseData.ApiVersion;
import io.fastleader.protocol.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * ApiVersions: advertises, for each API the simulation serves, the whole window message-schemas
 * speaks (which holds the versions fastleader and kafka-clients 3.7-4.4 send). No features are
 * advertised.
 */
final class ApiVersionsHandler implements RequestHandler {

    private final Set<ApiKey> served;

    ApiVersionsHandler(Set<ApiKey> served) {
        this.served = Set.copyOf(served);
    }

    @Override
    public CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request) {
        return CompletableFuture.completedFuture(response(ErrorCode.NONE));
    }

    /** The answer, also sent at v0 with UNSUPPORTED_VERSION to a client asking above our window. */
    ApiVersionsResponseData response(ErrorCode error) {
        ApiVersionCollection keys = new ApiVersionCollection();
        served.stream().sorted((a, b) -> Short.compare(a.id(), b.id())).forEach(api -> keys.add(new ApiVersion()
            .setApiKey(api.id())
            .setMinVersion(api.lowestVersion())
            .setMaxVersion(api.highestVersion())));
        return new ApiVersionsResponseData().setErrorCode(error.code()).setApiKeys(keys);
    }
}
