package io.fastleader.benchmarks.driver;

import java.util.Random;

/**
 * The record values of the steady benchmark, sent in turn by its producer turns and by the fill of
 * its consumer turns' backlogs: {@value #DISTINCT} distinct values of random bytes, more than a batch
 * holds (16 KiB by default: 163 records of 100 B), so that compression meets random bytes, not the
 * same value again.
 */
public final class RecordValues {

    /** How many distinct values there are. */
    public static final int DISTINCT = 1024;

    private RecordValues() {
    }

    /** The {@link #DISTINCT} values of {@code recordBytes} bytes each, the same on every call. */
    public static byte[][] of(int recordBytes) {
        Random random = new Random(recordBytes);
        byte[][] values = new byte[DISTINCT][recordBytes];
        for (byte[] value : values) {
            random.nextBytes(value);
        }
        return values;
    }
}
