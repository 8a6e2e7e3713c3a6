package dev.ratelimiter.it.liberty;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Liberty server's {@code messages.log} from a mark on: the Arquillian adapter reports a failed start of the
 * application only as a timeout, so the reason has to be read from the server's log. The directory comes from the
 * system property {@code liberty.server.logs} (failsafe).
 */
public final class ServerLog {

    private final Path file;
    private final long start;

    private ServerLog(Path file, long start) {
        this.file = file;
        this.start = start;
    }

    /** Marks the current end of the log; call before the deployment starts. */
    public static ServerLog mark() {
        Path file = Path.of(System.getProperty("liberty.server.logs"), "messages.log");
        try {
            return new ServerLog(file, Files.exists(file) ? Files.size(file) : 0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the server logged since the mark (everything, if the log was rolled over meanwhile). */
    public String text() {
        try (RandomAccessFile log = new RandomAccessFile(file.toFile(), "r")) {
            long from = log.length() >= start ? start : 0;
            byte[] bytes = new byte[(int) (log.length() - from)];
            log.seek(from);
            log.readFully(bytes);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
