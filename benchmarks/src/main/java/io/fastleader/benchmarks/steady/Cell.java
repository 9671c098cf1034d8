package io.fastleader.benchmarks.steady;

import java.util.Locale;

/**
 * One cell of the steady benchmark: what every client's producer sends with. All its other
 * settings stay at their defaults (acks=all aside), idempotence included.
 *
 * @param mode        as fast as one thread can send, or at a fixed rate with latencies
 * @param recordBytes value size of every record
 * @param lingerMs    {@code linger.ms}
 * @param maxInFlight {@code max.in.flight.requests.per.connection}
 * @param compression {@code compression.type}
 * @param rate        records per second in {@link Mode#LATENCY}; 0 in {@link Mode#THROUGHPUT}
 */
record Cell(Mode mode, int recordBytes, int lingerMs, int maxInFlight, String compression, int rate) {

    /** How a cell sends. */
    enum Mode {
        /** As fast as one thread can call {@code send}: records/s and what each costs. */
        THROUGHPUT,
        /** A fixed rate below saturation: send-to-acknowledgement latency, and what each record costs. */
        LATENCY;

        /** The mode as options, tables and JSON name it. */
        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static final String NO_COMPRESSION = "none";

    /** A throughput cell. */
    static Cell throughput(int recordBytes, int lingerMs, int maxInFlight, String compression) {
        return new Cell(Mode.THROUGHPUT, recordBytes, lingerMs, maxInFlight, compression, 0);
    }

    /** A latency cell, uncompressed. */
    static Cell latency(int recordBytes, int lingerMs, int maxInFlight, int rate) {
        return new Cell(Mode.LATENCY, recordBytes, lingerMs, maxInFlight, NO_COMPRESSION, rate);
    }

    /** The cell in topic names, e.g. {@code 1024b-linger5-inflight5-lz4} or {@code 100b-linger0-inflight5-at50000}. */
    String name() {
        return recordBytes + "b-linger" + lingerMs + "-inflight" + maxInFlight
            + (compression.equals(NO_COMPRESSION) ? "" : "-" + compression)
            + (mode == Mode.LATENCY ? "-at" + rate : "");
    }
}
