package io.fastleader.clients.network;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A request body built once the version it is sent at is known: for RPCs whose layout changed
 * between the versions we speak (OffsetFetch's batched groups, Fetch's topic ids), and for callers
 * that fall back when a broker is too old for a field.
 */
@FunctionalInterface
public interface VersionedRequest {

    /** The body to send at {@code version}. */
    ApiMessage at(short version);
}
