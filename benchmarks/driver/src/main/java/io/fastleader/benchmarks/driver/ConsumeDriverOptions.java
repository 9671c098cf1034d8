package io.fastleader.benchmarks.driver;

import java.time.Duration;
import java.util.Map;

/**
 * What the steady benchmark tells a {@link ConsumeDriver}, as {@code --name value} pairs.
 *
 * @param label          the variant's name, also the consumer's client id
 * @param bootstrap      {@code bootstrap.servers} (the benchmark's brokers are PLAINTEXT)
 * @param consumerClass  a {@code Consumer} with a {@code (Map, Deserializer, Deserializer)} constructor
 * @param topic          the backlog to read, which nothing writes to while the driver runs
 * @param recordBytes    bytes per record value: a value of any other size counts as an error
 * @param fetchMinBytes  {@code fetch.min.bytes}
 * @param maxPollRecords {@code max.poll.records}
 * @param warmUp         reading before the measured window opens
 * @param window         the measured window
 * @param clientConfig   further consumer settings, from {@code --client-config k=v,k=v}
 */
record ConsumeDriverOptions(String label, String bootstrap, String consumerClass, String topic, int recordBytes, int fetchMinBytes,
                            int maxPollRecords, Duration warmUp, Duration window, Map<String, Object> clientConfig) {

    static ConsumeDriverOptions parse(String[] args) {
        DriverArguments given = DriverArguments.of(args);
        return new ConsumeDriverOptions(given.required("--label"), given.required("--bootstrap"), given.required("--consumer-class"),
            given.required("--topic"), given.number("--record-bytes"), given.number("--fetch-min-bytes"),
            given.number("--max-poll-records"), given.seconds("--warmup-s"), given.seconds("--window-s"), given.clientConfig());
    }
}
