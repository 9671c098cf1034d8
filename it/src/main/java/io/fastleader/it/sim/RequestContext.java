package io.fastleader.it.sim;

import io.fastleader.protocol.ApiKey;

/** Who a request reached and how it was sent: the broker serving it and its header. */
record RequestContext(int brokerId, ApiKey api, short version, int correlationId, String clientId) {
}
