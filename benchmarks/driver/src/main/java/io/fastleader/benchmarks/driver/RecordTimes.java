package io.fastleader.benchmarks.driver;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Every measured record's partition, send time and acknowledgement time, in epoch microseconds, as
 * a file of fixed-size binary entries: the driver writes it, the coordinator reads it to split
 * each record's latency into time at a broker and time in the client. At a high rate these are
 * too many for the driver's standard output. Both JVMs run on one machine and read the same wall
 * clock, so the times line up with the brokers' request log to within the clocks' agreement.
 */
public final class RecordTimes implements AutoCloseable {

    private final DataOutputStream out;

    private RecordTimes(DataOutputStream out) {
        this.out = out;
    }

    /** A new, empty file at {@code file}, for {@link #write}. */
    public static RecordTimes create(Path file) throws IOException {
        return new RecordTimes(new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)));
    }

    /** Now, on the wall clock, in epoch microseconds. */
    public static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /** Appends one acknowledged record. */
    public synchronized void write(int partition, long sentMicros, long ackedMicros) {
        try {
            out.writeInt(partition);
            out.writeLong(sentMicros);
            out.writeLong(ackedMicros);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }

    /** Every record {@code file} holds, in the order written. */
    public static List<Record> read(Path file) throws IOException {
        List<Record> records = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
            while (true) {
                int partition;
                try {
                    partition = in.readInt();
                } catch (EOFException end) {
                    return records;
                }
                records.add(new Record(partition, in.readLong(), in.readLong()));
            }
        }
    }

    /** One acknowledged record: its partition, and when it was sent and acknowledged, in epoch microseconds. */
    public record Record(int partition, long sentMicros, long ackedMicros) {

        /** Send to acknowledgement. */
        public long latencyMicros() {
            return ackedMicros - sentMicros;
        }
    }
}
