package io.fastleader.clients.network;

import io.fastleader.protocol.ApiKey;

/**
 * Which of its connections to a broker {@link ConnectionPool} sends a request over. A broker reads
 * one request per connection at a time and reads the next only once it has answered, and a Fetch
 * may be held there for up to {@code fetch.max.wait.ms} waiting for records: Fetches get a
 * connection of their own, so that nothing else (heartbeats, offset commits, Metadata, ListOffsets)
 * waits behind a long poll.
 */
enum ConnectionLane {

    /** Fetch requests, which may long-poll. */
    FETCH,

    /** Every other request. */
    OTHER;

    /** The lane requests of {@code api} take. */
    static ConnectionLane of(ApiKey api) {
        return api == ApiKey.FETCH ? FETCH : OTHER;
    }
}
