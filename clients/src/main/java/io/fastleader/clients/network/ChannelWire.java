package io.fastleader.clients.network;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

import io.fastleader.protocol.Framing;

/**
 * A {@link Wire} over a non-blocking socket channel, for plaintext connections. Writes never wait
 * unless asked to: {@link #tryWrite} takes what the send buffer has room for, so a caller can
 * write its own request and leave any rest to the writer thread. The writer and the reader each
 * wait for readiness on a selector of their own, so neither holds up the other.
 */
final class ChannelWire implements Wire {

    /** Responses are read through this much buffer; a frame bigger than it is read straight into its own array. */
    private static final int READ_BUFFER_BYTES = 64 * 1024;

    private final SocketChannel channel;
    private final Selector readable;
    private final Selector writable;
    private final int maxFrameBytes;
    /** Bytes read but not yet taken as frames; in read mode between calls. */
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(READ_BUFFER_BYTES).flip();
    /** The frame whose size prefix has been read, while its bytes arrive. */
    private ByteBuffer pending;
    /** The last read filled its target, so the socket may hold more: read before waiting. */
    private boolean mayHaveMore;

    private ChannelWire(SocketChannel channel, Selector readable, Selector writable, int maxFrameBytes) {
        this.channel = channel;
        this.readable = readable;
        this.writable = writable;
        this.maxFrameBytes = maxFrameBytes;
    }

    /** Connects within {@code timeoutMs}, then switches the channel to non-blocking. */
    static ChannelWire connect(InetSocketAddress address, int timeoutMs, int maxFrameBytes) throws IOException {
        SocketChannel channel = SocketChannel.open();
        Selector readable = null;
        Selector writable = null;
        try {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.socket().connect(address, timeoutMs);
            channel.configureBlocking(false);
            readable = Selector.open();
            writable = Selector.open();
            channel.register(readable, SelectionKey.OP_READ);
            channel.register(writable, SelectionKey.OP_WRITE);
            return new ChannelWire(channel, readable, writable, maxFrameBytes);
        } catch (IOException | RuntimeException e) {
            closeAll(channel, readable, writable);
            throw e;
        }
    }

    @Override
    public boolean tryWrite(ByteBuffer[] frames) throws IOException {
        ByteBuffer last = frames[frames.length - 1];
        while (last.hasRemaining()) {
            if (channel.write(frames) == 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean write(ByteBuffer[] frames, long waitNanos) throws IOException {
        if (tryWrite(frames)) {
            return true;
        }
        // select(0) would wait forever; the caller's deadline may be less than a millisecond away.
        writable.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos)));
        writable.selectedKeys().clear();
        return tryWrite(frames);
    }

    @Override
    public ByteBuffer readFrame() throws IOException {
        ByteBuffer frame;
        while ((frame = takeFrame()) == null) {
            fill();
        }
        return frame;
    }

    /** The next whole frame from the buffered bytes, or null if more must be read first. */
    private ByteBuffer takeFrame() {
        if (pending == null) {
            if (buffer.remaining() < Framing.SIZE_PREFIX_BYTES) {
                return null;
            }
            pending = ByteBuffer.allocate(Framing.checkResponseSize(buffer.getInt(), maxFrameBytes));
        }
        int limit = buffer.limit();
        buffer.limit(buffer.position() + Math.min(buffer.remaining(), pending.remaining()));
        pending.put(buffer);
        buffer.limit(limit);
        if (pending.hasRemaining()) {
            return null;
        }
        ByteBuffer frame = pending.flip();
        pending = null;
        return frame;
    }

    /**
     * Reads at least one byte, waiting for the socket to be readable unless the last read suggests
     * it holds more. Into the buffer, or, for the rest of a frame bigger than the buffer, straight
     * into the frame.
     */
    private void fill() throws IOException {
        buffer.compact();
        try {
            ByteBuffer target = pending != null && buffer.position() == 0 && pending.remaining() >= buffer.capacity()
                ? pending : buffer;
            while (true) {
                if (!mayHaveMore) {
                    readable.select();
                    readable.selectedKeys().clear();
                }
                int read = channel.read(target);
                if (read < 0) {
                    throw new EOFException("the broker closed the connection");
                }
                mayHaveMore = !target.hasRemaining();
                if (read > 0) {
                    return;
                }
            }
        } finally {
            buffer.flip();
        }
    }

    /** Closing the selectors wakes a thread waiting in either and releases the socket. */
    @Override
    public void close() {
        closeAll(channel, readable, writable);
    }

    private static void closeAll(AutoCloseable... closeables) {
        for (AutoCloseable closeable : closeables) {
            try {
                if (closeable != null) {
                    closeable.close();
                }
            } catch (Exception e) {
                // Closing is best effort: the connection is being abandoned either way.
            }
        }
    }
}
