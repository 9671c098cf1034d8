package io.fastleader.it.sim;

import org.apache.kafka.common.protocol.ApiMessage;

/** Serves one API: turns a decoded request into its response body, reading and changing {@link ClusterState}. */
interface RequestHandler {

    /**
     * @return the response body, or {@code null} when the request gets no answer (Produce with
     *         {@code acks=0})
     */
    ApiMessage handle(RequestContext context, ApiMessage request);
}
