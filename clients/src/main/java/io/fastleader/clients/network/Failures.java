package io.fastleader.clients.network;

import java.util.concurrent.CompletionException;

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
}
