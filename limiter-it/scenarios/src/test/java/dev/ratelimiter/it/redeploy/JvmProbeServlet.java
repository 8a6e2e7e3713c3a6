package dev.ratelimiter.it.redeploy;

import jakarta.json.Json;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import javax.management.JMException;
import javax.management.ObjectName;
import java.io.IOException;
import java.lang.management.ManagementFactory;

/**
 * What a redeploy leaves behind, seen from inside the server's JVM after a full collection: how many class loaders
 * of this web module's kind are alive (HotSpot's {@code VM.classloader_stats}, the rows whose type is this
 * module's loader class), the live threads, the loaded classes, the threads whose context class loader is another deployment's, and which
 * deployment answered (the identity of
 * its loader). A servlet outside the example's {@code /api}, so polling it spends no limit. Added only to the
 * deployment {@link RedeployCheck} redeploys.
 */
@WebServlet("/probe/jvm")
public class JvmProbeServlet extends HttpServlet {

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        // Unreachable loaders and their classes go only in a full collection, which System.gc() is on HotSpot.
        System.gc();
        ClassLoader loader = getClass().getClassLoader();
        String statistics;
        try {
            statistics = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "vmClassloaderStats",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
        } catch (JMException e) {
            throw new IOException("VM.classloader_stats is not available: " + e, e);
        }
        String type = loader.getClass().getName();
        long loaders = statistics.lines().filter(line -> line.endsWith(" " + type)).count();
        // The threads whose context class loader is another deployment's: what usually keeps one alive.
        var holders = Json.createArrayBuilder();
        Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getContextClassLoader() != null && thread.getContextClassLoader() != loader
                        && thread.getContextClassLoader().getClass() == loader.getClass())
                .map(Thread::getName).sorted().forEach(holders::add);
        response.setContentType("application/json");
        response.getWriter().write(Json.createObjectBuilder()
                .add("deployment", Integer.toHexString(System.identityHashCode(loader)))
                .add("loaderType", type)
                .add("loaders", loaders)
                .add("threads", ManagementFactory.getThreadMXBean().getThreadCount())
                .add("classes", ManagementFactory.getClassLoadingMXBean().getLoadedClassCount())
                .add("threadsOfOtherDeployments", holders)
                .build().toString());
    }
}
