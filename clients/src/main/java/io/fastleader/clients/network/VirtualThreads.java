package io.fastleader.clients.network;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * {@code Thread.ofVirtual().unstarted(task)}, reached without compiling against Java 21: the
 * clients are built for Java 17 and run on newer JVMs too.
 */
final class VirtualThreads {

    /** {@code (Runnable) -> Thread}, or null on a JVM without virtual threads. */
    private static final MethodHandle UNSTARTED = unstartedHandle();

    /** Whether the running JVM offers virtual threads. */
    static final boolean AVAILABLE = UNSTARTED != null;

    private VirtualThreads() {
    }

    /** A virtual thread that will run {@code task}, not yet started. Only where {@link #AVAILABLE}. */
    static Thread unstarted(Runnable task) {
        try {
            return (Thread) UNSTARTED.invokeExact(task);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("Thread.Builder.unstarted threw a checked exception", e);
        }
    }

    private static MethodHandle unstartedHandle() {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        try {
            Class<?> builder = Class.forName("java.lang.Thread$Builder");
            Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
            MethodHandle newBuilder = lookup.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtual))
                    .asType(MethodType.methodType(builder));
            MethodHandle unstarted = lookup.findVirtual(builder, "unstarted",
                    MethodType.methodType(Thread.class, Runnable.class));
            // A builder for each thread: builders are not safe to share between threads.
            return MethodHandles.foldArguments(unstarted, newBuilder);
        } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException e) {
            return null;
        }
    }
}
