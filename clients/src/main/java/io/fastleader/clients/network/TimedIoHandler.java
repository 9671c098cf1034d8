package io.fastleader.clients.network;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoRegistration;
import io.netty.channel.nio.NioIoHandler;

/**
 * Netty's NIO handler, timed as kafka-clients' {@code Selector} times its poll: each run of the
 * handler is one select, the time it handled ready sockets is I/O, and the rest of the run, the
 * select itself, is waiting. Netty measures the I/O part ({@link IoHandlerContext#reportActiveIoTime})
 * when the loop asks it to; this asks it always and passes it on to a loop that asked too.
 */
final class TimedIoHandler implements IoHandler {

    /** Where each select's times go. */
    @FunctionalInterface
    interface SelectTimes {
        /** Nothing is measured. */
        SelectTimes NONE = (waitNanos, ioNanos) -> { };

        /** One select: {@code waitNanos} waiting for sockets, then {@code ioNanos} handling those ready. */
        void selected(long waitNanos, long ioNanos);
    }

    private final IoHandler nio;
    private final SelectTimes times;
    private final TimingContext timing = new TimingContext();

    private TimedIoHandler(IoHandler nio, SelectTimes times) {
        this.nio = nio;
        this.times = times;
    }

    /** Makes NIO handlers timed into {@code times}. */
    static IoHandlerFactory factory(SelectTimes times) {
        IoHandlerFactory nio = NioIoHandler.newFactory();
        return executor -> new TimedIoHandler(nio.newHandler(executor), times);
    }

    @Override
    public int run(IoHandlerContext context) {
        long start = System.nanoTime();
        timing.begin(context);
        int handled = nio.run(timing);
        long ioNanos = timing.activeNanos;
        times.selected(System.nanoTime() - start - ioNanos, ioNanos);
        return handled;
    }

    @Override
    public void initialize() {
        nio.initialize();
    }

    @Override
    public void prepareToDestroy() {
        nio.prepareToDestroy();
    }

    @Override
    public void destroy() {
        nio.destroy();
    }

    @Override
    public IoRegistration register(IoHandle handle) throws Exception {
        return nio.register(handle);
    }

    @Override
    public void wakeup() {
        nio.wakeup();
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return nio.isCompatible(handleType);
    }

    /** The loop's context for one run, reused: the loop's thread alone runs the handler. */
    private static final class TimingContext implements IoHandlerContext {
        private IoHandlerContext loop;
        long activeNanos;

        void begin(IoHandlerContext loopContext) {
            loop = loopContext;
            activeNanos = 0;
        }

        @Override
        public boolean canBlock() {
            return loop.canBlock();
        }

        @Override
        public long delayNanos(long currentTimeNanos) {
            return loop.delayNanos(currentTimeNanos);
        }

        @Override
        public long deadlineNanos() {
            return loop.deadlineNanos();
        }

        @Override
        public boolean shouldReportActiveIoTime() {
            return true;
        }

        @Override
        public void reportActiveIoTime(long activeNanos) {
            this.activeNanos += activeNanos;
            if (loop.shouldReportActiveIoTime()) {
                loop.reportActiveIoTime(activeNanos);
            }
        }
    }
}
