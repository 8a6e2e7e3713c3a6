package dev.ratelimiter.example;

import dev.ratelimiter.RateLimited;
import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;

/**
 * {@code GET /api/projects}: anonymous, limited only by the global filter (120 per minute per client).
 * {@code GET /api/projects/{id}}: also by the bucket {@code projects}, a burst and a sustained window (3 per 10 s
 * and 10 per hour per caller). {@code GET /api/projects/{id}/export}: by the bucket {@code export}, each export
 * costing 10 of its 25 per hour.
 */
@Path("projects")
@RequestScoped
public class ProjectsResource {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<Project> projects() {
        return Project.CATALOGUE;
    }

    @GET
    @Path("{id}")
    @Produces(MediaType.APPLICATION_JSON)
    @RateLimited(bucket = "projects")
    public Project project(@PathParam("id") String id) {
        return find(id);
    }

    @GET
    @Path("{id}/export")
    @Produces("text/csv")
    @RateLimited(bucket = "export", cost = 10)
    public String export(@PathParam("id") String id) {
        Project project = find(id);
        return "id,name\n" + project.id() + "," + project.name() + "\n";
    }

    private Project find(String id) {
        return projects().stream().filter(project -> project.id().equals(id)).findFirst()
                .orElseThrow(NotFoundException::new);
    }
}
