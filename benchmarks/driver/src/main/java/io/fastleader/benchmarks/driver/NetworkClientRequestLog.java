package io.fastleader.benchmarks.driver;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Marker;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.apache.logging.log4j.core.filter.AbstractFilter;
import org.apache.logging.log4j.message.Message;

/**
 * Counts, per client id and API, the requests that kafka-clients' {@link NetworkClient} sends, from
 * its own DEBUG line, logged once in {@code NetworkClient.doSend} for every request it puts on the
 * wire (kafka-clients 3.6 and 4.x alike): {@code Sending FETCH request with header
 * RequestHeader(apiKey=FETCH, apiVersion=17, clientId=..., correlationId=..., headerVersion=2) and
 * timeout 30000 to node 1: ...}. kafka-clients counts requests per node only; this is the count per API.
 *
 * <p>While installed: the {@code org.apache.kafka.clients.NetworkClient} logger (that logger only)
 * is at DEBUG with this appender on it, and the appenders it inherited get its events at the old
 * level only, so nothing more is printed. kafka-clients formats a DEBUG line in full before
 * logging it (request and response bodies included), which costs CPU on whichever thread logs; so
 * a context-wide filter lets that logger's newly enabled levels through only on the threads given
 * to {@link #watch} (in a JVM that runs brokers too, their NetworkClients stay as quiet and as cheap
 * as before), or on every thread after {@link #watchEveryThread}. What is counted is exact: one
 * line per request sent, matched on the client id in its header.
 */
public final class NetworkClientRequestLog implements AutoCloseable {

    private static final String NETWORK_CLIENT = NetworkClient.class.getName();
    private static final Pattern SENDING = Pattern.compile(
        "Sending (\\w+) request with header RequestHeader\\(apiKey=\\w+, apiVersion=-?\\d+, clientId=(.*?), correlationId=-?\\d+, headerVersion=");

    private final Map<String, Map<ApiKeys, LongAdder>> counts = new ConcurrentHashMap<>();
    private final Set<Thread> watched = ConcurrentHashMap.newKeySet();
    private volatile boolean everyThread;
    private final LoggerContext context;
    private final LoggerConfig logger;
    private final boolean createdLogger;
    private final Level previousLevel;
    private final boolean previousAdditive;
    private final List<Appender> inherited = new ArrayList<>();
    private final CountingAppender appender = new CountingAppender();
    private final WatchedThreadsOnly filter = new WatchedThreadsOnly();

    private NetworkClientRequestLog(Set<String> clientIds) {
        clientIds.forEach(id -> counts.put(id, new ConcurrentHashMap<>()));
        context = (LoggerContext) LogManager.getContext(false);
        Configuration configuration = context.getConfiguration();
        LoggerConfig closest = configuration.getLoggerConfig(NETWORK_CLIENT);
        previousLevel = closest.getLevel();
        createdLogger = !closest.getName().equals(NETWORK_CLIENT);
        if (createdLogger) {
            logger = new LoggerConfig(NETWORK_CLIENT, previousLevel, true);
            configuration.addLogger(NETWORK_CLIENT, logger);
        } else if (!closest.getAppenders().isEmpty()) {
            throw new IllegalStateException("the " + NETWORK_CLIENT + " logger has appenders of its own " + closest.getAppenders().keySet()
                + ", which would print every request at DEBUG; the request count needs it without");
        } else {
            logger = closest;
        }
        previousAdditive = logger.isAdditive();
        // What the logger passed on to its parents' appenders it now hands them itself, at the old level.
        if (previousAdditive) {
            for (LoggerConfig parent = logger.getParent(); parent != null; parent = parent.isAdditive() ? parent.getParent() : null) {
                for (Appender inheritedAppender : parent.getAppenders().values()) {
                    inherited.add(inheritedAppender);
                    logger.addAppender(inheritedAppender, previousLevel, null);
                }
            }
            logger.setAdditive(false);
        }
        filter.start();
        configuration.addFilter(filter);
        appender.start();
        logger.addAppender(appender, Level.DEBUG, null);
        logger.setLevel(Level.DEBUG);
        context.updateLoggers();
    }

    /** Starts counting the requests of the clients named {@code clientIds}, on the threads given to {@link #watch}. */
    public static NetworkClientRequestLog install(Set<String> clientIds) {
        return new NetworkClientRequestLog(clientIds);
    }

    /** Whether the requests of {@code clientId} are counted. */
    public boolean counts(String clientId) {
        return counts.containsKey(clientId);
    }

    /** Counts what NetworkClients log on {@code thread} from now on. */
    public void watch(Thread thread) {
        watched.add(thread);
    }

    /** Counts what NetworkClients log on any thread from now on: for a JVM whose only NetworkClients are the counted clients'. */
    public void watchEveryThread() {
        everyThread = true;
    }

    /** The requests {@code clientId} has sent so far, by API name ({@code Fetch}, {@code Metadata}, ...). */
    public Map<String, Long> sent(String clientId) {
        Map<String, Long> sent = new TreeMap<>();
        counts.get(clientId).forEach((api, count) -> sent.put(api.name, count.sum()));
        return sent;
    }

    /** Puts the logger back as it was. */
    @Override
    public void close() {
        Configuration configuration = context.getConfiguration();
        logger.removeAppender(appender.getName());
        if (createdLogger) {
            configuration.removeLogger(NETWORK_CLIENT);
        } else {
            logger.setLevel(previousLevel);
            inherited.forEach(a -> logger.removeAppender(a.getName()));
            logger.setAdditive(previousAdditive);
        }
        configuration.removeFilter(filter);
        context.updateLoggers();
        appender.stop();
        filter.stop();
    }

    private void count(String line) {
        Matcher sending = SENDING.matcher(line);
        if (!sending.find()) {
            return;
        }
        Map<ApiKeys, LongAdder> client = counts.get(sending.group(2));
        if (client != null) {
            client.computeIfAbsent(ApiKeys.valueOf(sending.group(1)), key -> new LongAdder()).increment();
        }
    }

    private final class CountingAppender extends AbstractAppender {

        CountingAppender() {
            super("fastleader-benchmark-request-count", null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public void append(LogEvent event) {
            count(event.getMessage().getFormattedMessage());
        }
    }

    /**
     * Denies the NetworkClient logger's levels below its old one on every thread not watched, so
     * {@code isDebugEnabled()} stays false there; says nothing about anything else.
     */
    private final class WatchedThreadsOnly extends AbstractFilter {

        private Result decide(String loggerName, Level level) {
            if (level == null || !NETWORK_CLIENT.equals(loggerName) || level.isMoreSpecificThan(previousLevel)) {
                return Result.NEUTRAL;
            }
            return everyThread || watched.contains(Thread.currentThread()) ? Result.NEUTRAL : Result.DENY;
        }

        private Result decide(Logger logger, Level level) {
            return decide(logger == null ? null : logger.getName(), level);
        }

        @Override
        public Result filter(LogEvent event) {
            return decide(event.getLoggerName(), event.getLevel());
        }

        @Override
        public Result filter(Logger logger, Level level, Marker marker, Message msg, Throwable t) {
            return decide(logger, level);
        }

        @Override
        public Result filter(Logger logger, Level level, Marker marker, Object msg, Throwable t) {
            return decide(logger, level);
        }

        @Override
        public Result filter(Logger logger, Level level, Marker marker, String msg) {
            return decide(logger, level);
        }

        @Override
        public Result filter(Logger logger, Level level, Marker marker, String msg, Object... params) {
            return decide(logger, level);
        }
    }
}
