package io.fastleader.benchmarks.steady;

import java.util.Locale;

/**
 * One cell of the steady benchmark: what every client sends or reads with. A producer's other
 * settings stay at their defaults (acks=all aside), idempotence included; so do a consumer's.
 *
 * @param mode           as fast as one thread can send, at a fixed rate with latencies, or reading a backlog
 * @param recordBytes    value size of every record
 * @param lingerMs       producer: {@code linger.ms}; 0 in {@link Mode#CONSUME}
 * @param maxInFlight    producer: {@code max.in.flight.requests.per.connection}; 0 in {@link Mode#CONSUME}
 * @param compression    producer: {@code compression.type}; {@value #NO_COMPRESSION} in {@link Mode#CONSUME}
 * @param rate           records per second in {@link Mode#LATENCY}; 0 in the others
 * @param fetchMinBytes  consumer: {@code fetch.min.bytes}; 0 in the producer modes
 * @param maxPollRecords consumer: {@code max.poll.records}; 0 in the producer modes
 */
record Cell(Mode mode, int recordBytes, int lingerMs, int maxInFlight, String compression, int rate, int fetchMinBytes,
            int maxPollRecords) {

    /** How a cell sends or reads. */
    enum Mode {
        /** As fast as one thread can call {@code send}: records/s and what each costs. */
        THROUGHPUT,
        /** A fixed rate below saturation: send-to-acknowledgement latency, and what each record costs. */
        LATENCY,
        /** A consumer reading a backlog flat out, from its start again at its end: records/s and what each costs. */
        CONSUME;

        /** The mode as options, tables and JSON name it. */
        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static final String NO_COMPRESSION = "none";

    /** A throughput cell. */
    static Cell throughput(int recordBytes, int lingerMs, int maxInFlight, String compression) {
        return new Cell(Mode.THROUGHPUT, recordBytes, lingerMs, maxInFlight, compression, 0, 0, 0);
    }

    /** A latency cell, uncompressed. */
    static Cell latency(int recordBytes, int lingerMs, int maxInFlight, int rate) {
        return new Cell(Mode.LATENCY, recordBytes, lingerMs, maxInFlight, NO_COMPRESSION, rate, 0, 0);
    }

    /** A consume cell. */
    static Cell consume(int recordBytes, int fetchMinBytes, int maxPollRecords) {
        return new Cell(Mode.CONSUME, recordBytes, 0, 0, NO_COMPRESSION, 0, fetchMinBytes, maxPollRecords);
    }

    /**
     * The cell in topic names and progress lines, e.g. {@code 1024b-linger5-inflight5-lz4},
     * {@code 100b-linger0-inflight5-at50000} or {@code consume-100b-fetchmin65536-poll500}.
     */
    String name() {
        if (mode == Mode.CONSUME) {
            return "consume-" + recordBytes + "b-fetchmin" + fetchMinBytes + "-poll" + maxPollRecords;
        }
        return recordBytes + "b-linger" + lingerMs + "-inflight" + maxInFlight
            + (compression.equals(NO_COMPRESSION) ? "" : "-" + compression)
            + (mode == Mode.LATENCY ? "-at" + rate : "");
    }
}
