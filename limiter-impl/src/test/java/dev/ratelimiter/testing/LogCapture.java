package dev.ratelimiter.testing;

import java.text.MessageFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What one class of the library logged (through {@code System.Logger}, which the JDK sends to
 * {@code java.util.logging} by default) while the capture was open. Close it to stop listening.
 */
public final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private LogCapture(Class<?> source) {
        logger = Logger.getLogger(source.getName());
        logger.addHandler(handler);
    }

    /** Starts listening to what {@code source} logs. */
    public static LogCapture of(Class<?> source) {
        return new LogCapture(source);
    }

    /** Every record at {@code level} or above, in the order logged. */
    public List<LogRecord> records(Level level) {
        return records.stream().filter(record -> record.getLevel().intValue() >= level.intValue()).toList();
    }

    /** The messages at {@code level} or above, with their parameters filled in. */
    public List<String> messages(Level level) {
        return records(level).stream()
                .map(record -> MessageFormat.format(record.getMessage(), record.getParameters()))
                .toList();
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
    }
}
