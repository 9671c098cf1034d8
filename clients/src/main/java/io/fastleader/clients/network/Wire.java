package io.fastleader.clients.network;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The byte stream under one {@link BrokerConnection}: whole request frames out, whole response
 * frames in. One thread at a time writes (the connection decides which) and one thread reads.
 */
interface Wire {

    /**
     * Writes as much of {@code frames} as the socket takes without waiting for buffer space.
     *
     * @return whether every byte was written; if not, the buffers' positions say where to go on
     */
    boolean tryWrite(ByteBuffer[] frames) throws IOException;

    /**
     * Writes {@code frames}, waiting up to {@code waitNanos} for the socket to take more.
     *
     * @return whether every byte was written; if not, call again to go on
     */
    boolean write(ByteBuffer[] frames, long waitNanos) throws IOException;

    /**
     * Blocks until the next response frame has arrived.
     *
     * @return the frame after its size prefix, in a buffer of its own
     * @throws java.io.EOFException if the broker closed the connection
     * @throws io.fastleader.protocol.MalformedFrameException if the size prefix is out of bounds
     */
    ByteBuffer readFrame() throws IOException;

    /** Closes the socket; a thread blocked in a read or write fails promptly. */
    void close();
}
