package dev.ratelimiter.example;

/** An import with a project whose id is not valid; answered 422 by {@link ImportRejectedMapper}. */
public class ImportRejectedException extends RuntimeException {

    private final String projectId;

    public ImportRejectedException(String projectId) {
        super("project id '" + projectId + "' is not lower-case letters, digits and dashes");
        this.projectId = projectId;
    }

    /** The id that was refused; may be {@code null}. */
    public String projectId() {
        return projectId;
    }
}
