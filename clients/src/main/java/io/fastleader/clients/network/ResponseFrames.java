package io.fastleader.clients.network;

import java.nio.ByteBuffer;
import java.util.List;

import io.fastleader.protocol.Framing;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * Cuts the bytes a broker sends into response frames: each one after its size prefix, in a heap
 * buffer of its own, since a decoded response may keep slices of it (a Fetch answer's records). A
 * size prefix out of bounds fails the connection with a {@link io.fastleader.protocol.MalformedFrameException}
 * before any of the frame is buffered.
 */
final class ResponseFrames extends ByteToMessageDecoder {

    private final int maxFrameBytes;

    ResponseFrames(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext context, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= Framing.SIZE_PREFIX_BYTES) {
            int size = Framing.checkResponseSize(in.getInt(in.readerIndex()), maxFrameBytes);
            if (in.readableBytes() - Framing.SIZE_PREFIX_BYTES < size) {
                return;
            }
            in.skipBytes(Framing.SIZE_PREFIX_BYTES);
            byte[] frame = new byte[size];
            in.readBytes(frame);
            out.add(ByteBuffer.wrap(frame));
        }
    }
}
