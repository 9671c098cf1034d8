package io.fastleader.benchmarks.common;

import java.nio.ByteBuffer;
import java.util.Random;

/** Record contents: values of random bytes (so they compress as real data would not), numbered keys. */
public final class Payload {

    private Payload() {
    }

    /** A value of {@code bytes} random bytes, the same on every call. */
    public static byte[] value(int bytes) {
        byte[] value = new byte[bytes];
        new Random(bytes).nextBytes(value);
        return value;
    }

    /** The key of the {@code n}th record: {@code n} as 8 big-endian bytes. */
    public static byte[] key(long n) {
        return ByteBuffer.allocate(Long.BYTES).putLong(n).array();
    }

    /** The record number in a key made by {@link #key}. */
    public static long number(byte[] key) {
        return ByteBuffer.wrap(key).getLong();
    }
}
