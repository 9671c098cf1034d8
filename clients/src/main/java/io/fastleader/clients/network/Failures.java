package io.fastleader.clients.network;

import java.util.concurrent.CompletionException;

import org.apache.kafka.common.errors.AuthenticationException;

/** What a failed request failed with, once the futures it passed through are looked past. */
public final class Failures {

    private Failures() {
    }

    /**
     * The failure itself rather than the {@link CompletionException} a dependent stage wraps it in;
     * null (no failure) stays null.
     */
    public static Throwable cause(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /**
     * The broker's refusal to authenticate the client (SASL or TLS) that {@code error} comes from, a
     * connection's setup failure or the backoff after one, or null if it comes from something else.
     */
    public static AuthenticationException authenticationFailure(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof AuthenticationException refused) {
                return refused;
            }
        }
        return null;
    }
}
