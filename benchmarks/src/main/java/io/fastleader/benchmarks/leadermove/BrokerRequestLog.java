package io.fastleader.benchmarks.leadermove;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

import io.fastleader.benchmarks.driver.RecordTimes;

/**
 * The Produce requests the brokers in this JVM completed while this is open, by client id, from
 * the brokers' own request log: a broker logs every request on {@code kafka.request.logger} at
 * DEBUG once its response is sent, as {@code Completed request:} and JSON with the request's
 * header and body (records left out), its connection and {@code totalTimeMs}, the time from its
 * receipt to the end of its response. The log is kept out of the console. It sees every client
 * alike, and through TLS, which a relay cannot.
 */
final class BrokerRequestLog implements AutoCloseable {

    static final String LOGGER = "kafka.request.logger";
    private static final String COMPLETED = "Completed request:";
    /** The header's first field, written the same way for every request: a cheap test before parsing. */
    private static final String PRODUCE = "\"requestApiKey\":0,";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final Map<String, List<ProduceAtBroker>> byClient = new ConcurrentHashMap<>();
    private final AbstractAppender appender;
    private final AtomicLong unparsed = new AtomicLong();

    private BrokerRequestLog() {
        appender = new AbstractAppender("leader-move-broker-requests", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                // Read before the message is formatted: the broker logs once the response is sent.
                long completedMicros = RecordTimes.nowMicros();
                String message = event.getMessage().getFormattedMessage();
                if (message.startsWith(COMPLETED) && message.contains(PRODUCE)) {
                    keep(message.substring(COMPLETED.length()), completedMicros);
                }
            }
        };
    }

    /** Starts keeping the brokers' Produce requests. */
    static BrokerRequestLog attach() {
        BrokerRequestLog log = new BrokerRequestLog();
        log.appender.start();
        LoggerConfig logger = new LoggerConfig(LOGGER, Level.DEBUG, false);
        logger.addAppender(log.appender, Level.DEBUG, null);
        log.context.getConfiguration().addLogger(LOGGER, logger);
        log.context.updateLoggers();
        return log;
    }

    private void keep(String json, long completedMicros) {
        ProduceAtBroker produce;
        try {
            produce = parse(json, completedMicros);
        } catch (JsonProcessingException | RuntimeException e) {
            unparsed.incrementAndGet();
            return;
        }
        List<ProduceAtBroker> requests = byClient.computeIfAbsent(produce.clientId(), id -> new ArrayList<>());
        // Each broker's network threads log their own requests.
        synchronized (requests) {
            requests.add(produce);
        }
    }

    /**
     * One Produce request's log entry, completed at {@code completedMicros}: at the broker from
     * {@code totalTimeMs} before.
     */
    static ProduceAtBroker parse(String json, long completedMicros) throws JsonProcessingException {
        JsonNode request = JSON.readTree(json);
        List<Integer> partitions = new ArrayList<>();
        for (JsonNode topic : request.path("request").path("topicData")) {
            for (JsonNode partition : topic.path("partitionData")) {
                partitions.add(partition.get("index").asInt());
            }
        }
        long totalMicros = Math.round(request.get("totalTimeMs").asDouble() * 1000);
        return new ProduceAtBroker(request.get("requestHeader").get("clientId").asText(), request.get("connection").asText(),
            partitions.stream().mapToInt(Integer::intValue).toArray(), completedMicros - totalMicros, completedMicros);
    }

    /** The Produce requests of {@code clientId} so far, in the order the brokers completed them. */
    List<ProduceAtBroker> produceRequests(String clientId) {
        List<ProduceAtBroker> requests = byClient.getOrDefault(clientId, List.of());
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    /** Log entries that looked like Produce requests and did not parse: each is a request missing from the split. */
    long unparsed() {
        return unparsed.get();
    }

    @Override
    public void close() {
        context.getConfiguration().removeLogger(LOGGER);
        context.updateLoggers();
        appender.stop();
    }

    /**
     * One Produce request at a broker.
     *
     * @param clientId     the producer's
     * @param connection   the connection it came on, as the broker names it: {@code local-remote-index}
     * @param partitions   the partitions it carried
     * @param startMicros  when the broker read it, in epoch microseconds
     * @param endMicros    the end of its response
     */
    record ProduceAtBroker(String clientId, String connection, int[] partitions, long startMicros, long endMicros) {

        /** The broker's listener address, the connection's local end. */
        String broker() {
            return connection.substring(0, Math.max(0, connection.indexOf('-')));
        }
    }
}
