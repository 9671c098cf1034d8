package io.fastleader.clients.network;

import java.nio.ByteBuffer;

import io.fastleader.protocol.Framing;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Cuts the bytes a broker sends into response frames: each one after its size prefix, in a heap
 * array of its own, since a decoded response may keep slices of it (a Fetch answer's records).
 *
 * <p>The array is allocated at the frame's size as soon as the prefix is read, and the bytes of
 * each read are copied straight into it: a large answer (a Fetch of megabytes) is copied once,
 * never gathered in a buffer that grows, and so copied again at each growth, before it is cut
 * out. A size prefix out of bounds fails the connection with a
 * {@link io.fastleader.protocol.MalformedFrameException} before any of the frame is buffered, and
 * every byte after it is dropped.
 */
final class ResponseFrames extends ChannelInboundHandlerAdapter {

    private final int maxFrameBytes;
    private final byte[] sizePrefix = new byte[Framing.SIZE_PREFIX_BYTES];
    private int sizePrefixRead;
    /** The frame being read, null while its size prefix is. */
    private byte[] frame;
    private int frameRead;
    private boolean malformed;

    ResponseFrames(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext context, Object message) {
        ByteBuf in = (ByteBuf) message;
        try {
            while (in.isReadable() && !malformed) {
                if (frame == null && !readSizePrefix(in)) {
                    return;
                }
                int bytes = Math.min(frame.length - frameRead, in.readableBytes());
                in.readBytes(frame, frameRead, bytes);
                frameRead += bytes;
                if (frameRead == frame.length) {
                    ByteBuffer whole = ByteBuffer.wrap(frame);
                    frame = null;
                    context.fireChannelRead(whole);
                }
            }
        } finally {
            in.release();
        }
    }

    /** Reads what {@code in} has of the size prefix; once it is whole, starts the frame it announces. */
    private boolean readSizePrefix(ByteBuf in) {
        int bytes = Math.min(sizePrefix.length - sizePrefixRead, in.readableBytes());
        in.readBytes(sizePrefix, sizePrefixRead, bytes);
        sizePrefixRead += bytes;
        if (sizePrefixRead < sizePrefix.length) {
            return false;
        }
        sizePrefixRead = 0;
        int size;
        try {
            size = Framing.checkResponseSize(ByteBuffer.wrap(sizePrefix).getInt(), maxFrameBytes);
        } catch (RuntimeException e) {
            malformed = true;
            throw e;
        }
        frame = new byte[size];
        frameRead = 0;
        return true;
    }
}
