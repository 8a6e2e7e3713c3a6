package dev.ratelimiter.internal.core.settings;

/** Whether an optional library is on the class path, asked without initialising any of its classes. */
public final class ClassPresence {

    private ClassPresence() {
    }

    /** {@code true} if {@code className} can be loaded by the loader of {@code from}. */
    public static boolean present(String className, Class<?> from) {
        try {
            Class.forName(className, false, from.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
