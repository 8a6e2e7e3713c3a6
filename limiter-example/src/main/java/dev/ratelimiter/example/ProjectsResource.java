package dev.ratelimiter.example;

import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;

/** {@code GET /api/projects}: anonymous, limited only by the global filter (120 per minute per client). */
@Path("projects")
@RequestScoped
public class ProjectsResource {

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public List<Project> projects() {
        return List.of(new Project("jrl", "Jakarta Rate Limiter"), new Project("demo", "Demo project"));
    }
}
