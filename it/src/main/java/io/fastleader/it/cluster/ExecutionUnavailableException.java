package io.fastleader.it.cluster;

/** The requested {@link Execution} cannot run on this machine, e.g. containers without Docker. */
public class ExecutionUnavailableException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** The reason, naming the execution and what is missing. */
    public ExecutionUnavailableException(String message) {
        super(message);
    }
}
