package io.fastleader.it.parity;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * The messages one logger (and the loggers below it) writes at INFO (or the level given) and above
 * while this is open, whatever level the test run logs at otherwise; they are kept out of the console.
 */
final class CapturedLog implements AutoCloseable {

    private final String loggerName;
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final List<String> messages = new CopyOnWriteArrayList<>();
    private final AbstractAppender appender;

    CapturedLog(String loggerName) {
        this(loggerName, Level.INFO);
    }

    /** Captures what {@code loggerName} writes at {@code level} and above: a broker's {@code kafka.request.logger} logs requests at DEBUG. */
    CapturedLog(String loggerName, Level level) {
        this.loggerName = loggerName;
        this.appender = new AbstractAppender("captured-" + loggerName, null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                messages.add(event.getMessage().getFormattedMessage());
            }
        };
        appender.start();
        Configuration configuration = context.getConfiguration();
        LoggerConfig logger = new LoggerConfig(loggerName, level, false);
        logger.addAppender(appender, level, null);
        configuration.addLogger(loggerName, logger);
        context.updateLoggers();
    }

    /** The messages so far, formatted, in the order they were logged. */
    List<String> messages() {
        return List.copyOf(messages);
    }

    @Override
    public void close() {
        context.getConfiguration().removeLogger(loggerName);
        context.updateLoggers();
        appender.stop();
    }
}
