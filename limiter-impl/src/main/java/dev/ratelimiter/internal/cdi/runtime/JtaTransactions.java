package dev.ratelimiter.internal.cdi.runtime;

import dev.ratelimiter.internal.core.settings.ClassPresence;
import jakarta.enterprise.inject.Instance;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;

import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Whether the calling thread has a JTA transaction, asked of the server's
 * {@code TransactionSynchronizationRegistry} (JNDI {@code java:comp/TransactionSynchronizationRegistry}, or a CDI
 * bean where there is no JNDI). Only {@link #detect} touches Jakarta Transactions types after checking they are
 * there: a Quarkus application without a transaction manager has none.
 */
final class JtaTransactions {

    private JtaTransactions() {
    }

    /** The question, if the server has a transaction manager. */
    static Optional<BooleanSupplier> detect(Instance<Object> beans) {
        if (!ClassPresence.present("jakarta.transaction.TransactionSynchronizationRegistry", JtaTransactions.class)) {
            return Optional.empty();
        }
        return registry(beans).map(registry -> () -> registry.getTransactionStatus() != Status.STATUS_NO_TRANSACTION);
    }

    private static Optional<TransactionSynchronizationRegistry> registry(Instance<Object> beans) {
        Optional<TransactionSynchronizationRegistry> bound = CdiStoreContext.serverDefault(
                "java:comp/TransactionSynchronizationRegistry", TransactionSynchronizationRegistry.class);
        if (bound.isPresent()) {
            return bound;
        }
        // no JNDI (Quarkus): the CDI bean, if any
        Instance<TransactionSynchronizationRegistry> bean = beans.select(TransactionSynchronizationRegistry.class);
        return bean.isResolvable() ? Optional.of(bean.get()) : Optional.empty();
    }
}
