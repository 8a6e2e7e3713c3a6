package dev.ratelimiter.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free loopback port in front of a store's server, to break the network between the limiter and
 * its server (PostgreSQL, Valkey) without touching the server:
 * <ul>
 *   <li>{@link #pass()}: bytes flow both ways (also what a stall's held bytes do when it ends);</li>
 *   <li>{@link #cut()}: every connection is closed, and new ones are accepted and closed at once;</li>
 *   <li>{@link #stall()}: connections are accepted (old and new stay open) but no byte is forwarded either way,
 *       as when packets are dropped: the client hears nothing until its own deadline;</li>
 *   <li>{@link #forwardTo}: new connections go to another server, open ones stay where they are, as when a DNS
 *       name or a load balancer moves to a new primary (the Valkey fault tests use it).</li>
 * </ul>
 * Plain sockets and one thread per direction; {@link #close()} closes everything and ends every thread.
 */
public final class TcpProxy implements AutoCloseable {

    enum Mode { PASS, CUT, STALL }

    private final ServerSocket server;
    private volatile InetSocketAddress target;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads;
    private final Object gate = new Object();
    private volatile Mode mode = Mode.PASS;
    private volatile boolean closed;

    private TcpProxy(ServerSocket server, InetSocketAddress target) {
        this.server = server;
        this.target = target;
        AtomicInteger number = new AtomicInteger();
        this.threads = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "tcp-proxy-" + number.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        threads.execute(this::acceptLoop);
    }

    /** A proxy on a free port of 127.0.0.1 forwarding to {@code host:port}, passing. */
    public static TcpProxy start(String host, int port) {
        try {
            ServerSocket server = new ServerSocket(0, 200, InetAddress.getByName("127.0.0.1"));
            return new TcpProxy(server, new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    /** New connections go to {@code host:port} from now on; open ones keep their server. */
    public void forwardTo(String host, int port) {
        target = new InetSocketAddress(host, port);
    }

    /** Forwards again; bytes held by a stall are delivered now. */
    public void pass() {
        setMode(Mode.PASS);
    }

    /** Closes every connection; new ones are closed as soon as they are accepted. */
    public void cut() {
        setMode(Mode.CUT);
        closeAllConnections();
    }

    /** Forwards nothing, either way, and closes nothing. */
    public void stall() {
        setMode(Mode.STALL);
    }

    /** Connections open through the proxy now (two sockets each). */
    public int openConnections() {
        return sockets.size() / 2;
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        closeAllConnections();
        synchronized (gate) {
            gate.notifyAll();
        }
        threads.shutdownNow();
        try {
            if (!threads.awaitTermination(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("proxy threads did not end");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void setMode(Mode next) {
        synchronized (gate) {
            mode = next;
            gate.notifyAll();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (mode == Mode.CUT || closed) {
                closeQuietly(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(target, 5_000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            sockets.add(client);
            sockets.add(upstream);
            if (mode == Mode.CUT || closed) { // cut while connecting
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            threads.execute(() -> pump(client, upstream));
            threads.execute(() -> pump(upstream, client));
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int read;
            while ((read = in.read(buffer)) != -1) {
                if (!awaitForwarding()) {
                    break;
                }
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException e) {
            // the other side closed, or the proxy cut or closed the connection
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** Waits while stalled; {@code false} when the connection must end instead. */
    private boolean awaitForwarding() {
        synchronized (gate) {
            while (mode == Mode.STALL && !closed) {
                try {
                    gate.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return mode == Mode.PASS && !closed;
        }
    }

    private void closeAllConnections() {
        for (Socket socket : sockets) {
            try {
                socket.setSoLinger(true, 0); // a reset, as a broken network path would give
            } catch (SocketException e) {
                // already closed
            }
            closeQuietly(socket);
        }
    }

    private void closeQuietly(Socket socket) {
        sockets.remove(socket);
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }
}
