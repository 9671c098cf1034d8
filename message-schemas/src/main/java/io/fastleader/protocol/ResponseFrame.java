package io.fastleader.protocol;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A decoded response: the correlation id from its header and its body.
 *
 * @param correlationId the id of the request this answers
 * @param body          the decoded response body
 */
public record ResponseFrame(int correlationId, ApiMessage body) {
}
