package dev.ratelimiter.it.payara;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Keeps a copy of what the test JVM prints. The Payara Micro adapter echoes the server's console to
 * {@code System.out}, and on a failed deployment it reports nothing else: the server log is where the reason is.
 */
final class ConsoleCapture {

    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    /** Starts copying {@code System.out}; call before the deployment starts. */
    static ConsoleCapture start() {
        ConsoleCapture capture = new ConsoleCapture();
        PrintStream original = System.out;
        System.setOut(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                original.write(b);
                synchronized (capture.copy) {
                    capture.copy.write(b);
                }
            }

            @Override
            public void write(byte[] bytes, int offset, int length) {
                original.write(bytes, offset, length);
                synchronized (capture.copy) {
                    capture.copy.write(bytes, offset, length);
                }
            }
        }, true, StandardCharsets.UTF_8));
        return capture;
    }

    /** Everything printed since {@link #start()}. */
    String text() {
        synchronized (copy) {
            return copy.toString(StandardCharsets.UTF_8);
        }
    }
}
