package dev.ratelimiter.internal.cdi.call;

import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;

import java.util.List;

/**
 * Finds the one bean a setting names, for the key and plan resolvers ({@code ratelimiter.api.key-resolver},
 * {@code ratelimiter.buckets.<name>.plan-resolver}, {@code @RateLimited}'s attributes): by {@code @Named} name, else
 * by a bean class's fully qualified name; none or several is an error naming the setting.
 */
final class NamedBeans {

    /**
     * A bean and its bean class's name, which messages name (the instance may be a client proxy).
     *
     * @param bean  the contextual reference
     * @param label the bean class's name
     */
    record Found<T>(T bean, String label) {
    }

    private NamedBeans() {
    }

    /**
     * The one bean of {@code type} a setting's value designates: a {@code @Named} name, else a class's name.
     *
     * @param beans every bean of the type
     * @param type  the interface the bean implements
     * @param value the setting's value
     * @param what  the setting and its value, for messages ({@code ratelimiter.api.key-resolver='x'})
     * @throws IllegalArgumentException naming the setting, if it designates no bean of the type, or several
     */
    static <T> Found<T> byNameOrClass(Instance<T> beans, Class<T> type, String value, String what) {
        Instance<T> named = beans.select(NamedLiteral.of(value));
        if (!named.isUnsatisfied()) {
            return only(named, type, what);
        }
        Class<?> found;
        try {
            found = Class.forName(value, false, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException(what + ": no " + type.getSimpleName() + " bean has this @Named name, "
                    + "and no class has this name");
        }
        if (!type.isAssignableFrom(found)) {
            throw new IllegalArgumentException(what + ": " + found.getName() + " does not implement " + type.getName());
        }
        return only(beans.select(found.asSubclass(type)), type, what);
    }

    /**
     * The one bean among {@code matching}.
     *
     * @throws IllegalArgumentException naming the setting, if there is none or several (naming them)
     */
    static <T> Found<T> only(Instance<? extends T> matching, Class<T> type, String what) {
        List<String> classes = matching.handlesStream().map(h -> h.getBean().getBeanClass().getName()).toList();
        if (classes.isEmpty()) {
            throw new IllegalArgumentException(what + " names no " + type.getSimpleName() + " bean (is the class a "
                    + "CDI bean, with a bean-defining annotation such as @ApplicationScoped?)");
        }
        if (classes.size() > 1) {
            throw new IllegalArgumentException(what + " is ambiguous: it names the beans " + String.join(", ",
                    classes.stream().sorted().toList()) + "; name one by a type only it has, or by @Named");
        }
        return new Found<>(matching.get(), classes.get(0));
    }
}
