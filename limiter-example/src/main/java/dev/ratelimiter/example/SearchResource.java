package dev.ratelimiter.example;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.List;
import java.util.Locale;

/**
 * {@code GET /api/search?q=...}: the projects of the demo catalogue whose id or name contains {@code q}, ignoring
 * case (all of them without {@code q}), 10 searches per minute per caller (bucket {@code search}, keyed by the
 * principal, else the client address). The bucket is a sliding window: the searches of the minute before still
 * count, weighted by the part of that minute within the last 60 seconds, so a caller cannot search 10 times at the
 * end of one minute and 10 more at the start of the next.
 */
@Path("search")
@RequestScoped
public class SearchResource {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited(bucket = "search")
    public List<Project> search(@QueryParam("q") String query) {
        String needle = query == null ? "" : query.strip().toLowerCase(Locale.ROOT);
        return Project.CATALOGUE.stream()
                .filter(project -> project.id().toLowerCase(Locale.ROOT).contains(needle)
                        || project.name().toLowerCase(Locale.ROOT).contains(needle))
                .toList();
    }
}
