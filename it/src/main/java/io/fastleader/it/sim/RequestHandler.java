package io.fastleader.it.sim;

import java.util.concurrent.CompletionStage;

import org.apache.kafka.common.protocol.ApiMessage;

/** Serves one API: turns a decoded request into its response body, reading and changing {@link ClusterState}. */
interface RequestHandler {

    /**
     * Serves {@code request}. Most APIs answer at once, with a completed stage; a request that
     * waits (a Fetch for records not yet produced) completes its stage later, from another thread.
     * The connection it came on serves nothing else until then, as a broker mutes a connection
     * while a request of it is in progress.
     *
     * @return the response body, or a stage of {@code null} when the request gets no answer
     *         (Produce with {@code acks=0}); a stage failed with a
     *         {@link RequestDispatcher.ProtocolViolation} closes the connection
     */
    CompletionStage<ApiMessage> handle(RequestContext context, ApiMessage request);
}
