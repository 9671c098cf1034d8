package io.fastleader.benchmarks.driver;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Keeps the slowest batches fastleader's producer reports on its {@code SlowBatches} logger
 * ({@code fastleader.slow.batch.log.ms}): each line says where one batch waited, phase by phase.
 * Only batches created after {@link #startMeasuring} count, as in the driver's percentiles; the
 * lines go nowhere else.
 */
final class SlowBatchLog {

    /** The logger fastleader's producer reports slow batches on. */
    static final String LOGGER = "io.fastleader.clients.producer.SlowBatches";
    /** One appender at a time: a later install replaces an earlier one's. */
    private static final String APPENDER = "fastleader-benchmark-slow-batches";
    private static final Pattern TOOK = Pattern.compile("took (\\d+) ms");

    private final int kept;
    private final PriorityQueue<Slow> slowest = new PriorityQueue<>(Comparator.comparingLong(Slow::millis));
    private volatile long measureFromMillis = Long.MAX_VALUE;

    private SlowBatchLog(int kept) {
        this.kept = kept;
    }

    /** Starts keeping the {@code kept} slowest batches logged from now on; install before the producer is built. */
    static SlowBatchLog install(int kept) {
        SlowBatchLog log = new SlowBatchLog(kept);
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        Configuration configuration = context.getConfiguration();
        LoggerConfig logger = configuration.getLoggerConfig(LOGGER);
        if (logger.getName().equals(LOGGER)) {
            logger.removeAppender(APPENDER);
        } else {
            logger = new LoggerConfig(LOGGER, Level.INFO, false);
            configuration.addLogger(LOGGER, logger);
        }
        AbstractAppender appender = new AbstractAppender(APPENDER, null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                log.add(event.getTimeMillis(), event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        logger.addAppender(appender, Level.INFO, null);
        context.updateLoggers();
        return log;
    }

    /** Batches created from now on count. */
    void startMeasuring() {
        measureFromMillis = System.currentTimeMillis();
    }

    /** The lines of the slowest batches, slowest first. */
    synchronized List<String> slowest() {
        List<Slow> all = new ArrayList<>(slowest);
        all.sort(Comparator.comparingLong(Slow::millis).reversed());
        return all.stream().map(Slow::line).toList();
    }

    synchronized void add(long loggedAtMillis, String line) {
        Matcher took = TOOK.matcher(line);
        if (!took.find()) {
            return;
        }
        long millis = Long.parseLong(took.group(1));
        if (loggedAtMillis - millis < measureFromMillis) {
            return;
        }
        slowest.add(new Slow(millis, line));
        if (slowest.size() > kept) {
            slowest.poll();
        }
    }

    private record Slow(long millis, String line) {
    }
}
