package dev.ratelimiter.example;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Imports projects into a workspace in one transaction: all or nothing. Every attempt takes one of the workspace's
 * import attempts first ({@link ImportQuota}), inside the transaction; a rejected import rolls the transaction
 * back, and the attempt still counts, because the limiter's counter never joins the application's transaction.
 */
@ApplicationScoped
public class ProjectImporter {

    private static final Pattern PROJECT_ID = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

    @Inject
    ImportQuota quota;

    /**
     * @return how many projects were imported
     * @throws ImportRejectedException if a project's id is not lower-case letters, digits and dashes (the
     *                                 transaction rolls back); {@code RateLimitExceededException} past the limit
     */
    @Transactional
    public int importProjects(String workspace, List<Project> projects) {
        quota.take(workspace);
        for (Project project : projects) {
            if (project == null || project.id() == null || !PROJECT_ID.matcher(project.id()).matches()) {
                throw new ImportRejectedException(project == null ? null : project.id());
            }
        }
        // A real application writes the projects here, in this transaction.
        return projects.size();
    }
}
