package io.fastleader.it.sim;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;

/**
 * A topic's settings as the simulation describes them (CreateTopics v5+ and DescribeConfigs): the
 * topic's own, given at creation, over Kafka's defaults for a few that fixtures and applications
 * read. A broker lists every topic setting; the simulation lists only these.
 */
final class TopicSettings {

    /** One setting, and where its value comes from. */
    record Setting(String name, String value, ConfigSource source) {
    }

    /** Kafka's defaults (a broker's, unless its own configuration overrides them). */
    private static final Map<String, String> DEFAULTS = Map.of(
        TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
        TopicConfig.COMPRESSION_TYPE_CONFIG, "producer",
        TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "1048588",
        TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime",
        TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, "1",
        TopicConfig.RETENTION_BYTES_CONFIG, "-1",
        TopicConfig.RETENTION_MS_CONFIG, "604800000",
        TopicConfig.SEGMENT_BYTES_CONFIG, "1073741824",
        TopicConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, "false");

    /** Every topic setting kafka-clients names: a broker refuses a topic created with another. */
    private static final Set<String> KNOWN = Stream.of(TopicConfig.class.getFields())
        .filter(field -> Modifier.isStatic(field.getModifiers()) && field.getType() == String.class
            && field.getName().endsWith("_CONFIG"))
        .map(TopicSettings::value)
        .collect(Collectors.toUnmodifiableSet());

    private TopicSettings() {
    }

    /** Whether a topic may be created with setting {@code name}. */
    static boolean isKnown(String name) {
        return KNOWN.contains(name);
    }

    /** A topic's settings by name: its own ({@link ConfigSource#TOPIC_CONFIG}) over the defaults. */
    static List<Setting> describe(Map<String, String> own) {
        Map<String, Setting> byName = new TreeMap<>();
        DEFAULTS.forEach((name, value) -> byName.put(name, new Setting(name, value, ConfigSource.DEFAULT_CONFIG)));
        own.forEach((name, value) -> byName.put(name, new Setting(name, value, ConfigSource.TOPIC_CONFIG)));
        return new ArrayList<>(byName.values());
    }

    private static String value(Field field) {
        try {
            return (String) field.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
