package dev.ratelimiter.it.payara;

import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The application's own work, deployed with the example for {@link PayaraPostgresPoolExhaustionIT}: {@code POST}
 * borrows {@code connections} connections of the pool the rate limiter shares ({@link PayaraPool#JNDI_NAME}) and
 * holds them, as long-running requests of the application would; {@code DELETE} gives them back. Outside
 * {@code /api/}, so the global limit does not apply to it.
 */
@WebServlet("/it/pool-holder")
public class PoolHolderServlet extends HttpServlet {

    private final List<Connection> held = new ArrayList<>();

    @Override
    protected synchronized void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        int count = Integer.parseInt(request.getParameter("connections"));
        try {
            DataSource pool = (DataSource) new InitialContext().lookup(PayaraPool.JNDI_NAME);
            while (held.size() < count) {
                held.add(pool.getConnection());
            }
        } catch (NamingException | SQLException e) {
            response.sendError(500, e.toString());
            return;
        }
        response.getWriter().print(held.size());
    }

    @Override
    protected synchronized void doDelete(HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        for (Connection connection : held) {
            try {
                connection.close();
            } catch (SQLException e) {
                // back to the pool or dropped: either way no longer held
            }
        }
        held.clear();
        response.getWriter().print(0);
    }
}
