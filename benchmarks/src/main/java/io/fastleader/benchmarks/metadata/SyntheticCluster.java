package io.fastleader.benchmarks.metadata;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.IntFunction;

import io.fastleader.clients.metadata.BrokerEndpoint;
import io.fastleader.clients.metadata.LeaderCache;
import io.fastleader.clients.metadata.MetadataMetrics;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.MetadataResponseData;
import org.apache.kafka.clients.Metadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.internals.ClusterResourceListeners;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.utils.LogContext;

/**
 * One cluster layout, loaded into fastleader's {@link LeaderCache} and into kafka-clients'
 * {@link Metadata} from the same Metadata response, so both caches start from identical state:
 * {@value #TOPICS} topics of equal size on brokers 0 to {@value #BROKERS}-1, every partition at
 * leader epoch 0, replicated on all brokers, all in sync.
 *
 * <p>Partitions are numbered by an <em>ordinal</em> that walks across topics first: ordinal
 * {@code i} is partition {@code i / TOPICS} of topic {@code i % TOPICS}. A hint for the first
 * {@code n <= TOPICS} ordinals therefore names {@code n} topics, as a broker that loses leadership
 * of many topics would, and the leaders of neighbouring ordinals differ, so load is spread.
 */
final class SyntheticCluster {

    static final int TOPICS = 100;
    static final int BROKERS = 3;
    private static final String HOST = "localhost";
    private static final int FIRST_PORT = 9092;
    /** Every broker holds a replica of every partition, so any of them may become leader. */
    private static final List<Integer> REPLICAS = List.of(0, 1, 2);
    /** The newest Metadata version fastleader speaks; kafka-clients 4.3.1 reads it too. */
    private static final short VERSION = ApiKey.METADATA.highestVersion();

    private final int partitions;

    /** A layout of {@code partitions} partitions, a multiple of {@value #TOPICS}. */
    SyntheticCluster(int partitions) {
        if (partitions <= 0 || partitions % TOPICS != 0) {
            throw new IllegalArgumentException("partitions must be a positive multiple of " + TOPICS + ": " + partitions);
        }
        this.partitions = partitions;
    }

    /**
     * The leader of the partition with ordinal {@code ordinal} at {@code epoch}. Every epoch moves
     * every partition to the next broker, so each advancing hint really changes the leader.
     */
    static int leader(int ordinal, int epoch) {
        return (ordinal + epoch) % BROKERS;
    }

    /**
     * The {@code NodeEndpoints} a broker sends with hints for the first {@code hinted} ordinals: at
     * index {@code epoch % BROKERS}, the endpoints of the brokers that lead them at {@code epoch}.
     */
    static <T> List<List<T>> endpointsByEpoch(int hinted, IntFunction<T> endpoint) {
        List<List<T>> byEpoch = new ArrayList<>();
        for (int epoch = 0; epoch < BROKERS; epoch++) {
            SortedSet<Integer> leaders = new TreeSet<>();
            // Leaders repeat every BROKERS ordinals.
            for (int ordinal = 0; ordinal < Math.min(hinted, BROKERS); ordinal++) {
                leaders.add(leader(ordinal, epoch));
            }
            byEpoch.add(leaders.stream().map(endpoint::apply).toList());
        }
        return byEpoch;
    }

    /** Broker {@code id} as fastleader's cache knows it from Metadata. */
    static BrokerEndpoint endpoint(int id) {
        return new BrokerEndpoint(id, HOST, port(id), null, false);
    }

    /** Broker {@code id} as kafka-clients knows it from Metadata. */
    static Node node(int id) {
        return new Node(id, HOST, port(id));
    }

    private static int port(int id) {
        return FIRST_PORT + id;
    }

    /** The partition with ordinal {@code ordinal}. */
    static TopicPartition partition(int ordinal) {
        return new TopicPartition(topicName(ordinal % TOPICS), ordinal / TOPICS);
    }

    /** The id of the topic of the partition with ordinal {@code ordinal} (topic {@code t} is ordinal {@code t}'s). */
    static Uuid topicId(int ordinal) {
        // Any fixed, non-zero id will do: the caches only compare ids for equality.
        return new Uuid(0x5EED, 1 + ordinal % TOPICS);
    }

    /** fastleader's cache, filled from the layout's Metadata response as fastleader parses it, and checked. */
    LeaderCache leaderCache(MetadataMetrics metrics) {
        LeaderCache cache = new LeaderCache(metrics);
        cache.applyMetadata(new MetadataResponseData(MessageUtil.toByteBufferAccessor(response(), VERSION), VERSION), 1);
        checkFilled("fastleader", cache.leadership(partition(partitions - 1)) != null);
        return cache;
    }

    /** kafka-clients' metadata, filled from the same response as kafka-clients parses it, and checked. */
    Metadata kafkaMetadata() {
        // Backoffs and expiry only govern when a refresh is requested, which nothing here does.
        Metadata metadata = new Metadata(100, 1_000, Long.MAX_VALUE, new LogContext("[bench] "),
            new ClusterResourceListeners());
        metadata.updateWithCurrentRequestVersion(new MetadataResponse(response(), VERSION), false, 0L);
        checkFilled("kafka-clients", metadata.currentLeader(partition(partitions - 1)).epoch.isPresent());
        return metadata;
    }

    /**
     * The layout as a broker describes it. It is built with kafka-clients' message classes; fastleader
     * reads its serialised bytes with its own, so both clients learn the cluster from the same wire
     * format.
     */
    private org.apache.kafka.common.message.MetadataResponseData response() {
        var response = new org.apache.kafka.common.message.MetadataResponseData();
        for (int id = 0; id < BROKERS; id++) {
            response.brokers().add(new MetadataResponseBroker().setNodeId(id).setHost(HOST).setPort(port(id)));
        }
        for (int topic = 0; topic < TOPICS; topic++) {
            MetadataResponseTopic described = new MetadataResponseTopic().setName(topicName(topic)).setTopicId(topicId(topic));
            for (int index = 0; index < partitions / TOPICS; index++) {
                described.partitions().add(new MetadataResponsePartition()
                    .setPartitionIndex(index)
                    .setLeaderId(leader(index * TOPICS + topic, 0))
                    .setLeaderEpoch(0)
                    .setReplicaNodes(REPLICAS)
                    .setIsrNodes(REPLICAS));
            }
            response.topics().add(described);
        }
        return response;
    }

    private static String topicName(int topic) {
        return "topic-" + topic;
    }

    private void checkFilled(String client, boolean lastPartitionKnown) {
        if (!lastPartitionKnown) {
            throw new IllegalStateException(client + " did not learn all " + partitions + " partitions");
        }
    }
}
