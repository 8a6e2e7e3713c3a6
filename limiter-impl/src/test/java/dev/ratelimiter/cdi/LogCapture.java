package dev.ratelimiter.cdi;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The records one class's {@link System.Logger} writes (to java.util.logging, the default), kept from
 * {@link #of(Class)} until {@link #close()}. Thread-safe.
 */
final class LogCapture extends Handler implements AutoCloseable {

    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();

    private LogCapture(Logger logger) {
        this.logger = logger;
    }

    /** Starts keeping what {@code type}'s logger writes. */
    static LogCapture of(Class<?> type) {
        LogCapture capture = new LogCapture(Logger.getLogger(type.getName()));
        capture.logger.addHandler(capture);
        return capture;
    }

    /** Every record so far, oldest first. */
    List<LogRecord> records() {
        return List.copyOf(records);
    }

    /** Every record's message (unformatted), oldest first. */
    List<String> messages() {
        return records.stream().map(LogRecord::getMessage).toList();
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    @Override
    public void flush() {
    }

    /** Stops keeping records. */
    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
