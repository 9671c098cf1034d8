package io.fastleader.clients.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import io.fastleader.protocol.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class ResponseFramesTest {

    private static final int MAX_FRAME_BYTES = 1024;

    @Property(tries = 200)
    void cutsTheSameFramesHoweverTheBytesArriveSplit(@ForAll @Size(min = 1, max = 5) List<@IntRange(min = 4, max = 300) Integer> frameSizes,
                                                      @ForAll @IntRange(min = 1, max = 64) int readBytes) {
        List<byte[]> frames = new ArrayList<>();
        ByteBuf wire = Unpooled.buffer();
        for (int i = 0; i < frameSizes.size(); i++) {
            byte[] frame = new byte[frameSizes.get(i)];
            for (int b = 0; b < frame.length; b++) {
                frame[b] = (byte) (i * 31 + b);
            }
            frames.add(frame);
            wire.writeInt(frame.length).writeBytes(frame);
        }
        EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrames(MAX_FRAME_BYTES));

        while (wire.isReadable()) {
            channel.writeInbound(wire.readRetainedSlice(Math.min(readBytes, wire.readableBytes())));
        }

        for (byte[] frame : frames) {
            ByteBuffer read = channel.readInbound();
            assertThat(read).isEqualTo(ByteBuffer.wrap(frame));
        }
        assertThat((Object) channel.readInbound()).isNull();
        wire.release();
    }

    @Test
    void keepsAPartFrameUntilTheRestArrives() {
        EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrames(MAX_FRAME_BYTES));

        channel.writeInbound(Unpooled.buffer().writeInt(6).writeBytes(new byte[] {1, 2, 3}));

        assertThat((Object) channel.readInbound()).isNull();
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {4, 5, 6}));
        assertThat((ByteBuffer) channel.readInbound()).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6}));
    }

    @Test
    void failsOnASizePrefixAboveTheLimitAndDropsWhatFollows() {
        EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrames(MAX_FRAME_BYTES));

        assertThatThrownBy(() -> channel.writeInbound(Unpooled.buffer().writeInt(MAX_FRAME_BYTES + 1).writeBytes(new byte[8])))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessageContaining("exceeds the limit of " + MAX_FRAME_BYTES);

        channel.writeInbound(Unpooled.buffer().writeInt(4).writeInt(7));
        assertThat((Object) channel.readInbound()).isNull();
    }

    @Test
    void failsOnASizePrefixBelowTheSmallestFrame() {
        EmbeddedChannel channel = new EmbeddedChannel(new ResponseFrames(MAX_FRAME_BYTES));

        assertThatThrownBy(() -> channel.writeInbound(Unpooled.buffer().writeInt(3)))
            .isInstanceOf(MalformedFrameException.class)
            .hasMessageContaining("invalid response size prefix 3");
    }
}
