package io.fastleader.clients.network;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.Framing;
import io.fastleader.protocol.message.RequestHeaderData;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A request frame as the parts that go on the wire in order: the size prefix, the header and the
 * plain fields in a pooled direct buffer, and each record batch big enough to matter as a buffer
 * of its own, wrapping the batch's bytes where they are. No record is copied to encode a request,
 * nor anything zero-filled; the one copy of a batch is the one into the socket's direct memory as
 * Netty writes it. The generated messages write themselves through {@link Writable}, so this is
 * what they write to, as kafka-clients' own {@code SendBuilder} is.
 */
final class RequestFrame implements Writable {

    /** Record batches smaller than this are copied with the plain fields: a part of their own would cost more. */
    static final int BY_REFERENCE_BYTES = 1024;

    private final ByteBuf plain;
    private final List<ByteBuf> parts = new ArrayList<>(3);
    /** Where the plain bytes not yet cut into a part begin. */
    private int uncut;

    private RequestFrame(ByteBuf plain) {
        this.plain = plain;
    }

    /**
     * Encodes a request: size prefix, header, body.
     *
     * @return the frame's parts, to be written in order; the caller owns them and releases them
     *         unless it hands them to the channel
     * @throws IllegalArgumentException if {@code body} is not a request of {@code api}, or
     *                                  {@code version} is outside our window
     */
    static ByteBuf[] encode(ApiKey api, short version, int correlationId, String clientId, ApiMessage body) {
        RequestHeaderData header = Framing.requestHeader(api, version, correlationId, clientId, body);
        short headerVersion = api.requestHeaderVersion(version);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        MessageSizeAccumulator size = new MessageSizeAccumulator();
        header.addSize(size, cache, headerVersion);
        body.addSize(size, cache, version);
        RequestFrame frame = new RequestFrame(
            ByteBufAllocator.DEFAULT.directBuffer(Framing.SIZE_PREFIX_BYTES + size.sizeExcludingZeroCopy()));
        try {
            frame.plain.writeInt(size.totalSize());
            header.write(frame, cache, headerVersion);
            body.write(frame, cache, version);
            return frame.parts();
        } catch (RuntimeException e) {
            frame.parts.forEach(ByteBuf::release);
            frame.plain.release();
            throw e;
        }
    }

    /** Bytes in all of {@code parts}. */
    static int bytes(ByteBuf[] parts) {
        int bytes = 0;
        for (ByteBuf part : parts) {
            bytes += part.readableBytes();
        }
        return bytes;
    }

    /** Releases parts that will not be written. */
    static void release(ByteBuf[] parts) {
        for (ByteBuf part : parts) {
            part.release();
        }
    }

    private ByteBuf[] parts() {
        if (parts.isEmpty()) {
            return new ByteBuf[] {plain};
        }
        cut();
        plain.release();
        return parts.toArray(new ByteBuf[0]);
    }

    /** Ends the plain part written since the last cut, if any, as a part of its own. */
    private void cut() {
        int end = plain.writerIndex();
        if (end > uncut) {
            parts.add(plain.retainedSlice(uncut, end - uncut));
            uncut = end;
        }
    }

    @Override
    public void writeRecords(BaseRecords records) {
        if (records instanceof MemoryRecords memory && memory.sizeInBytes() >= BY_REFERENCE_BYTES) {
            cut();
            parts.add(Unpooled.wrappedBuffer(memory.buffer()));
        } else {
            Writable.super.writeRecords(records);
        }
    }

    @Override
    public void writeByte(byte value) {
        plain.writeByte(value);
    }

    @Override
    public void writeShort(short value) {
        plain.writeShort(value);
    }

    @Override
    public void writeInt(int value) {
        plain.writeInt(value);
    }

    @Override
    public void writeLong(long value) {
        plain.writeLong(value);
    }

    @Override
    public void writeDouble(double value) {
        plain.writeDouble(value);
    }

    @Override
    public void writeByteArray(byte[] value) {
        plain.writeBytes(value);
    }

    @Override
    public void writeByteBuffer(ByteBuffer value) {
        plain.writeBytes(value.duplicate());
    }

    @Override
    public void writeUnsignedVarint(int value) {
        int rest = value;
        while ((rest & 0xFFFFFF80) != 0) {
            plain.writeByte((rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        plain.writeByte(rest);
    }

    @Override
    public void writeVarint(int value) {
        writeUnsignedVarint((value << 1) ^ (value >> 31));
    }

    @Override
    public void writeVarlong(long value) {
        long rest = (value << 1) ^ (value >> 63);
        while ((rest & 0xFFFFFFFFFFFFFF80L) != 0L) {
            plain.writeByte(((int) rest & 0x7F) | 0x80);
            rest >>>= 7;
        }
        plain.writeByte((int) rest);
    }
}
