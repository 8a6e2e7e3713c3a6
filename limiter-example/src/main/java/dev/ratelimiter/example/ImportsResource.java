package dev.ratelimiter.example;

import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.json.Json;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;

/**
 * {@code POST /api/workspaces/{workspace}/imports} with a JSON array of projects: 200 with the number imported,
 * 422 if a project's id is not valid (nothing is imported), 429 after 3 attempts for one workspace in an hour.
 */
@Path("workspaces/{workspace}/imports")
@RequestScoped
public class ImportsResource {

    @Inject
    ProjectImporter importer;

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Produces(MediaType.APPLICATION_JSON)
    public Response importProjects(@PathParam("workspace") String workspace, List<Project> projects) {
        if (projects == null) {
            return MalformedBodyMapper.badRequest(); // an empty body: nothing to import, and no attempt taken
        }
        int imported = importer.importProjects(workspace, projects);
        return Response.ok(Json.createObjectBuilder().add("imported", imported).build().toString()).build();
    }
}
