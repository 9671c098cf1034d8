package io.fastleader.protocol;

import org.apache.kafka.common.KafkaException;

/**
 * A frame from the wire could not be decoded: bad size prefix, truncated body, trailing bytes or a
 * body that does not match its schema. The connection it came from can no longer be trusted.
 */
public class MalformedFrameException extends KafkaException {

    private static final long serialVersionUID = 1L;

    /** A frame rejected for a reason found by our own checks. */
    public MalformedFrameException(String message) {
        super(message);
    }

    /** A frame rejected because decoding it failed with {@code cause}. */
    public MalformedFrameException(String message, Throwable cause) {
        super(message, cause);
    }
}
