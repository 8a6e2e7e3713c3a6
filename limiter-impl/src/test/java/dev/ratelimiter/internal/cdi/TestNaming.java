package dev.ratelimiter.internal.cdi;

import javax.naming.Context;
import javax.naming.NameNotFoundException;
import javax.naming.OperationNotSupportedException;
import javax.naming.spi.InitialContextFactory;
import java.lang.reflect.Proxy;
import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A JNDI naming service for tests, where names can be bound at any moment: to play a server that binds an
 * application's DataSource only after CDI has started. Installed through {@code java.naming.factory.initial}.
 */
public final class TestNaming implements InitialContextFactory {

    private static final Map<String, Object> BOUND = new ConcurrentHashMap<>();

    /** Makes {@code new InitialContext()} use this naming service. */
    static void install() {
        System.setProperty(Context.INITIAL_CONTEXT_FACTORY, TestNaming.class.getName());
    }

    /** Back to no naming service, with nothing bound. */
    static void uninstall() {
        System.clearProperty(Context.INITIAL_CONTEXT_FACTORY);
        BOUND.clear();
    }

    static void bind(String name, Object object) {
        BOUND.put(name, object);
    }

    @Override
    public Context getInitialContext(Hashtable<?, ?> environment) {
        return (Context) Proxy.newProxyInstance(TestNaming.class.getClassLoader(), new Class<?>[] {Context.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "lookup" -> {
                        Object found = BOUND.get(String.valueOf(args[0]));
                        if (found == null) {
                            throw new NameNotFoundException("No object bound to name " + args[0]);
                        }
                        yield found;
                    }
                    case "close" -> null;
                    case "toString" -> "TestNaming";
                    default -> throw new OperationNotSupportedException(method.getName());
                });
    }
}
