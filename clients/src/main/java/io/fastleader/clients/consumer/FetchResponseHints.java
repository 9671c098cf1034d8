package io.fastleader.clients.consumer;

import java.util.ArrayList;
import java.util.List;

import io.fastleader.clients.metadata.BrokerEndpoint;
import io.fastleader.protocol.message.FetchResponseData;

/** The {@code NodeEndpoints} of a Fetch response (v16+), as the leader cache takes them. */
final class FetchResponseHints {

    private FetchResponseHints() {
    }

    static List<BrokerEndpoint> endpoints(FetchResponseData response) {
        List<BrokerEndpoint> endpoints = new ArrayList<>();
        for (FetchResponseData.NodeEndpoint endpoint : response.nodeEndpoints()) {
            endpoints.add(new BrokerEndpoint(endpoint.nodeId(), endpoint.host(), endpoint.port(), endpoint.rack(), true));
        }
        return endpoints;
    }
}
