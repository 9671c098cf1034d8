package io.fastleader.benchmarks.driver;

import java.time.Duration;
import java.util.Map;

/**
 * What the steady benchmark tells a {@link SteadyDriver}, as {@code --name value} pairs.
 *
 * @param label         the variant's name, also the producer's client id
 * @param bootstrap     {@code bootstrap.servers} (the benchmark's brokers are PLAINTEXT)
 * @param producerClass a {@code Producer} with a {@code (Map, Serializer, Serializer)} constructor
 * @param topic         the topic of this turn, the driver's alone
 * @param recordBytes   bytes per record value
 * @param lingerMs      {@code linger.ms}
 * @param maxInFlight   {@code max.in.flight.requests.per.connection}
 * @param compression   {@code compression.type}
 * @param rate          records per second, or 0 for as fast as one thread can call {@code send}
 * @param warmUp        sending before the measured window opens
 * @param window        the measured window
 * @param clientConfig  further producer settings, from {@code --client-config k=v,k=v}
 */
record SteadyDriverOptions(String label, String bootstrap, String producerClass, String topic, int recordBytes, int lingerMs,
                           int maxInFlight, String compression, int rate, Duration warmUp, Duration window,
                           Map<String, Object> clientConfig) {

    static SteadyDriverOptions parse(String[] args) {
        DriverArguments given = DriverArguments.of(args);
        return new SteadyDriverOptions(given.required("--label"), given.required("--bootstrap"), given.required("--producer-class"),
            given.required("--topic"), given.number("--record-bytes"), given.number("--linger-ms"), given.number("--max-in-flight"),
            given.required("--compression"), given.number("--rate"), given.seconds("--warmup-s"), given.seconds("--window-s"),
            given.clientConfig());
    }
}
