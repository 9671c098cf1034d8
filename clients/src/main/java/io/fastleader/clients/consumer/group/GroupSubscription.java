package io.fastleader.clients.consumer.group;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.consumer.group.GroupMembership.Subscription;
import io.fastleader.clients.metadata.ClusterMetadata;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.protocol.message.MetadataResponseData;

/**
 * What the application subscribed to, whichever group protocol the member speaks: topic names, a
 * {@code Pattern} matched here against the cluster's topics as they come and go, or a
 * {@code SubscriptionPattern} the coordinator matches; and the listener it gave. Lists the cluster's
 * topics for a {@code Pattern} and to name topic ids. Every change of what the member subscribes to
 * is handed to the member, which joins or reports it. Used on the consumer's state owner.
 */
final class GroupSubscription {

    private static final Logger LOG = LoggerFactory.getLogger(GroupSubscription.class);
    static final ConsumerRebalanceListener NO_LISTENER = new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        }
    };

    /** The kinds of subscription, which {@code KafkaConsumer} never lets one replace another without an unsubscribe between. */
    private enum Kind { TOPICS, PATTERN, SUBSCRIPTION_PATTERN }

    private final ClusterMetadata metadata;
    private final LeaderCache cache;
    private final StateOwner owner;
    private final Runnable wakeConsumer;
    private final LongSupplier clockMs;
    private final long topicListingIntervalMs;
    private final boolean excludeInternalTopics;
    /** Topic names by id, from metadata; kept across subscriptions. */
    private final Map<Uuid, String> topicNames = new HashMap<>();
    private Consumer<Subscription> member = wanted -> { };

    private ConsumerRebalanceListener listener = NO_LISTENER;
    /** Null when not subscribed. */
    private Set<String> topics;
    private Pattern pattern;
    private SubscriptionPattern brokerPattern;
    private CompletableFuture<MetadataResponseData> listing;
    private long nextListingMs = Long.MAX_VALUE;

    /**
     * @param wakeConsumer           makes a consumer thread waiting in {@code poll} look again
     * @param topicListingIntervalMs how often a {@code Pattern} subscription lists the cluster's topics ({@code metadata.max.age.ms})
     * @param excludeInternalTopics  {@code exclude.internal.topics}: whether a {@code Pattern} leaves internal topics out
     */
    GroupSubscription(ClusterMetadata metadata, StateOwner owner, Runnable wakeConsumer, LongSupplier clockMs,
                      long topicListingIntervalMs, boolean excludeInternalTopics) {
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.cache = metadata.cache();
        this.owner = Objects.requireNonNull(owner, "owner");
        this.wakeConsumer = Objects.requireNonNull(wakeConsumer, "wakeConsumer");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        this.topicListingIntervalMs = topicListingIntervalMs;
        this.excludeInternalTopics = excludeInternalTopics;
    }

    /** Hands every change of what the member subscribes to to {@code changed}: the member joins, or reports it. */
    void onChange(Consumer<Subscription> changed) {
        this.member = Objects.requireNonNull(changed, "changed");
    }

    /**
     * Subscribes to exactly these topics (not empty).
     *
     * @throws IllegalStateException when subscribed to a {@code Pattern} or a {@code SubscriptionPattern}
     */
    void subscribe(Collection<String> wanted, ConsumerRebalanceListener callback) {
        requireKind(Kind.TOPICS);
        reset(callback);
        topics = Set.copyOf(wanted);
        metadata.awaitTopics(topics).whenComplete((ignored, error) -> wakeConsumer.run());
        member.accept(Subscription.ofTopics(topics));
    }

    /**
     * Subscribes to the topics matching {@code regex}, matched here against the cluster's topics as they come and go.
     *
     * @throws IllegalStateException when subscribed to topics or a {@code SubscriptionPattern}
     */
    void subscribe(Pattern regex, ConsumerRebalanceListener callback) {
        requireKind(Kind.PATTERN);
        reset(callback);
        pattern = regex;
        topics = Set.of();
        nextListingMs = clockMs.getAsLong();
        listTopics();
    }

    /**
     * Subscribes to the topics the coordinator matches with {@code regex} (RE2/J).
     *
     * @throws IllegalStateException when subscribed to topics or a {@code Pattern}
     */
    void subscribe(SubscriptionPattern regex, ConsumerRebalanceListener callback) {
        requireKind(Kind.SUBSCRIPTION_PATTERN);
        reset(callback);
        brokerPattern = regex;
        topics = Set.of();
        member.accept(Subscription.ofRegex(regex.pattern()));
    }

    /** Forgets the subscription, as the member leaves: a listing under way is dropped. */
    void unsubscribe() {
        if (listing != null) {
            listing.cancel(false);
            listing = null;
        }
        reset(null);
    }

    boolean isSubscribed() {
        return topics != null;
    }

    /**
     * The subscription as {@code KafkaConsumer} reports it: the topics, or those a {@code Pattern}
     * matched last; none for a {@code SubscriptionPattern}, whose topics only the coordinator matches.
     */
    Set<String> topics() {
        return topics == null ? Set.of() : topics;
    }

    /** The application's listener; a listener that does nothing when it gave none. */
    ConsumerRebalanceListener listener() {
        return listener;
    }

    /** Whether the application gave a listener, whose callbacks are timed into the group's metrics. */
    boolean hasListener() {
        return listener != NO_LISTENER;
    }

    /** Lists the cluster's topics for a {@code Pattern} when it is time to. */
    void onPoll(long nowMs) {
        if (pattern != null && nowMs >= nextListingMs) {
            listTopics();
        }
    }

    /** When {@link #onPoll} next has timed work: listing the topics for a {@code Pattern}. */
    long nextTimerMs() {
        return nextListingMs;
    }

    /**
     * Partitions given by topic id, by name; null while a topic id is not known yet (a listing is
     * then under way, and wakes the consumer when it is in).
     */
    Set<TopicPartition> named(Map<Uuid, SortedSet<Integer>> partitionsByTopicId) {
        for (String topic : topics()) {
            cache.topicId(topic).ifPresent(id -> topicNames.put(id, topic));
        }
        Set<TopicPartition> partitions = new HashSet<>();
        for (Map.Entry<Uuid, SortedSet<Integer>> topic : partitionsByTopicId.entrySet()) {
            String name = topicNames.get(topic.getKey());
            if (name == null) {
                listTopics();
                return null;
            }
            topic.getValue().forEach(index -> partitions.add(new TopicPartition(name, index)));
        }
        return partitions;
    }

    private void requireKind(Kind wanted) {
        if (topics == null) {
            return;
        }
        Kind current = pattern != null ? Kind.PATTERN : brokerPattern != null ? Kind.SUBSCRIPTION_PATTERN : Kind.TOPICS;
        if (current != wanted) {
            throw new IllegalStateException(ConsumerGroup.MUTUALLY_EXCLUSIVE);
        }
    }

    private void reset(ConsumerRebalanceListener callback) {
        listener = callback == null ? NO_LISTENER : callback;
        topics = null;
        pattern = null;
        brokerPattern = null;
        nextListingMs = Long.MAX_VALUE;
    }

    /** Lists the cluster's topics once at a time: names for new topic ids, and a {@code Pattern}'s matches. */
    private void listTopics() {
        if (listing != null) {
            return;
        }
        CompletableFuture<MetadataResponseData> asked = metadata.describeAllTopics();
        listing = asked;
        asked.whenCompleteAsync((response, error) -> listed(asked, response, error), owner);
    }

    private void listed(CompletableFuture<MetadataResponseData> asked, MetadataResponseData response, Throwable error) {
        if (listing != asked) {
            return;
        }
        listing = null;
        if (pattern != null) {
            nextListingMs = clockMs.getAsLong() + topicListingIntervalMs;
        }
        if (error != null) {
            LOG.warn("Listing the cluster's topics for group subscription failed: {}", error.toString());
            return;
        }
        Set<String> matched = new TreeSet<>();
        for (MetadataResponseData.MetadataResponseTopic topic : response.topics()) {
            if (topic.name() == null) {
                continue;
            }
            if (!Uuid.ZERO_UUID.equals(topic.topicId())) {
                topicNames.put(topic.topicId(), topic.name());
            }
            if (pattern != null && !(excludeInternalTopics && topic.isInternal()) && pattern.matcher(topic.name()).matches()) {
                matched.add(topic.name());
            }
        }
        wakeConsumer.run();
        if (pattern != null && !matched.equals(topics)) {
            LOG.info("Pattern {} matches topics {}", pattern, matched);
            topics = Set.copyOf(matched);
            if (!matched.isEmpty()) {
                metadata.awaitTopics(matched);
            }
            member.accept(Subscription.ofTopics(matched));
        }
    }
}
