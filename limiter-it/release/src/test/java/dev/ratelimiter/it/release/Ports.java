package dev.ratelimiter.it.release;

import java.io.IOException;
import java.net.ServerSocket;

/** Free ports on this machine for the walkthroughs' servers. */
final class Ports {

    private Ports() {
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * An offset at which WildFly's four ports (HTTP 8080, HTTPS 8443, management 9990 and 9993, each plus the
     * offset) are free.
     *
     * @throws IllegalStateException if 20 tries found none
     */
    static int freeWildFlyPortOffset() throws IOException {
        for (int attempt = 0; attempt < 20; attempt++) {
            int offset = freePort() - 8080;
            if (offset > 0 && 9993 + offset < 65536 && free(8443 + offset) && free(9990 + offset)
                    && free(9993 + offset)) {
                return offset;
            }
        }
        throw new IllegalStateException("no port offset with WildFly's four ports free in 20 tries");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
