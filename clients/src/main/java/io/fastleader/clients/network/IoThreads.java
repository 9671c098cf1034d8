package io.fastleader.clients.network;

import java.util.Locale;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * {@value #CONFIG}: the kind of thread a connection's reader and writer, and a pool's connect
 * threads, run on. Those are the threads whose number grows with the cluster (two per connection);
 * a client's other threads are a few per client and always platform threads.
 *
 * <p>Virtual threads are used from Java 25 only, not from 21 where they first exist: a plaintext
 * connection's reader and writer wait for readiness in a {@code Selector}, and before Java 25 a
 * virtual thread waiting in one keeps its carrier thread, so a client would hold as many platform
 * threads as before, with a scheduler that can run out of carriers besides. From 25 it parks
 * there, as in socket reads and writes, and (since 24) in {@code synchronized} blocks as well.
 *
 * <p>The default is {@link #PLATFORM}: on Java 25 a round trip over virtual reader and writer
 * threads costs more than over platform ones (a loopback {@code RoundTripBenchmark} one at a time:
 * 0.88x the round trips per second in plaintext, 0.67x over TLS, where every request and response
 * crosses threads), and most clients talk to few enough brokers that their threads cost little.
 * {@link #AUTO} or {@link #VIRTUAL} is for a client of a cluster large enough that a thread pair
 * per connection is the greater cost.
 */
public enum IoThreads {

    /** Virtual threads where the JVM's are fit for the transport (Java 25+), else platform threads. */
    AUTO,
    /** Virtual threads; a configuration error on a JVM before 25. */
    VIRTUAL,
    /** Platform threads, as on every JVM before 25: the default. */
    PLATFORM;

    public static final String CONFIG = "fastleader.io.threads";
    public static final String DEFAULT = "platform";
    /** The first Java release whose virtual threads park while waiting in a {@code Selector}. */
    static final int FIRST_FIT_JAVA = 25;

    /** Checks a value of {@value #CONFIG} when the configuration is parsed, on this JVM. */
    public static final ConfigDef.Validator VALIDATOR = new ConfigDef.Validator() {
        @Override
        public void ensureValid(String name, Object value) {
            parse((String) value);
        }

        @Override
        public String toString() {
            return "[auto, virtual, platform]; virtual needs Java " + FIRST_FIT_JAVA + " or newer";
        }
    };

    /**
     * The setting {@code value} names, case-insensitively.
     *
     * @throws ConfigException naming {@value #CONFIG} for any other value, or for {@code virtual} on a JVM before 25
     */
    public static IoThreads parse(String value) {
        IoThreads setting;
        try {
            setting = valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new ConfigException(CONFIG, value, "must be one of auto, virtual, platform");
        }
        // Throws for virtual on a JVM unfit for it: the error comes with the configuration, not the first connection.
        setting.virtual();
        return setting;
    }

    /**
     * Whether this setting makes virtual threads on the running JVM.
     *
     * @throws ConfigException for {@link #VIRTUAL} on a JVM before 25
     */
    public boolean virtual() {
        return virtualOn(Runtime.version().feature(), VirtualThreads.AVAILABLE);
    }

    /**
     * Whether this setting makes virtual threads on a JVM of Java release {@code javaFeature} that
     * does or does not offer them.
     *
     * @throws ConfigException for {@link #VIRTUAL} where the answer would be no
     */
    boolean virtualOn(int javaFeature, boolean virtualThreadsOffered) {
        boolean fit = javaFeature >= FIRST_FIT_JAVA && virtualThreadsOffered;
        if (this == VIRTUAL && !fit) {
            throw new ConfigException(CONFIG, "virtual", "virtual threads need Java " + FIRST_FIT_JAVA
                    + " or newer (before it, one waiting in a Selector keeps its carrier thread); this JVM is Java "
                    + javaFeature + "; use auto or platform");
        }
        return this != PLATFORM && fit;
    }
}
