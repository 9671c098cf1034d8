package io.fastleader.clients.network;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;

import io.fastleader.protocol.Framing;

/**
 * A {@link Wire} over a blocking socket's streams, for TLS: {@code SSLSocket} has no non-blocking
 * write, so {@link #tryWrite} never writes and every frame goes through the connection's writer
 * thread, which may block on a full send buffer without holding up any caller.
 */
final class StreamWire implements Wire {

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final int maxFrameBytes;

    StreamWire(Socket socket, int maxFrameBytes) throws IOException {
        this.socket = socket;
        this.out = new BufferedOutputStream(socket.getOutputStream());
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    public boolean tryWrite(ByteBuffer[] frames) {
        return false;
    }

    /** Blocks until every byte is written: a stream cannot wait for a bounded time. */
    @Override
    public boolean write(ByteBuffer[] frames, long waitNanos) throws IOException {
        for (ByteBuffer frame : frames) {
            out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
            frame.position(frame.limit());
        }
        out.flush();
        return true;
    }

    @Override
    public ByteBuffer readFrame() throws IOException {
        int size;
        try {
            size = in.readInt();
        } catch (EOFException e) {
            throw new EOFException("the broker closed the connection");
        }
        byte[] frame = new byte[Framing.checkResponseSize(size, maxFrameBytes)];
        in.readFully(frame);
        return ByteBuffer.wrap(frame);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // Closing is best effort: the connection is being abandoned either way.
        }
    }
}
