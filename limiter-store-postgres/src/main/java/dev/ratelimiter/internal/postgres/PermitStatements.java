package dev.ratelimiter.internal.postgres;

import dev.ratelimiter.spi.StorePermit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A concurrency bucket's permits in the counter table (docs/stores.md#permits), by the rule of
 * {@code Permits.Leases}: the statements that take, check, give back and renew them, read once when the store starts
 * from the {@code .sql} resources beside this class ({@link SqlResource}), which say what each decides and why; each
 * call binds its values by name and reads its answer here, on a connection the store hands it. The migration is
 * unchanged: a key's permits are one row keyed {@link CounterStatements#PERMITS_KEY_PREFIX} and the hashed key, whose
 * arrays hold the permits' ids ({@code window_counts}) and deadlines ({@code window_ends}), {@code count} the permits
 * held and {@code ends_at} the latest deadline, so the sweep deletes the row once every lease has ended.
 *
 * <p>A take is one {@code INSERT ... ON CONFLICT DO UPDATE ... RETURNING} ({@code permits-take.sql}): the row's lock
 * serialises the takes of a key from every replica, each deciding on the permits the one before left, so never one
 * more than the limit is held; a check ({@link StorePermit#CHECK}) is one read that writes nothing
 * ({@code permits-check.sql}); give-backs ({@code permits-give-back.sql}) and renewals ({@code permits-renew.sql}) of
 * any number of permits are one statement each, which lock their rows in (bucket, key) order. The time is the
 * database's, one instant per statement, as the counters'; tests bind one ({@code :now}).
 *
 * <p>Binding and reading throw only the driver's {@link SQLException}, which the store classifies
 * ({@link PostgresFailures}), and {@link IllegalStateException} for a parameter name no case binds (a mistake in a
 * statement's resource).
 */
final class PermitStatements {

    private final NamedStatement take;
    private final NamedStatement check;
    private final NamedStatement giveBack;
    private final NamedStatement renew;
    private final CounterParameters parameters;

    /**
     * @param table      the counter table, already validated as an identifier
     * @param boundClock empty in production (the database's {@code statement_timestamp()}); tests bind instants
     * @param parameters what binds a test's instant ({@link CounterParameters#bindNow})
     */
    PermitStatements(String table, Optional<InstantSource> boundClock, CounterParameters parameters) {
        Map<String, String> values = Map.of("table", table, "now", CounterStatements.now(boundClock));
        this.take = NamedStatement.of(SqlResource.load("permits-take.sql", values));
        this.check = NamedStatement.of(SqlResource.load("permits-check.sql", values));
        this.giveBack = NamedStatement.of(SqlResource.load("permits-give-back.sql", values));
        this.renew = NamedStatement.of(SqlResource.load("permits-renew.sql", values));
        this.parameters = parameters;
    }

    /**
     * Takes a permit, or only counts for a check: {@code RateLimitStore#take}'s answer.
     *
     * @return {@code 1} if allowed else {@code 0}; the permits held after it; the leases it found ended and removed
     *         (none for a check, which removes nothing: the next take counts them)
     */
    long[] take(Connection connection, StorePermit permit) throws SQLException {
        NamedStatement sql = permit.isCheck() ? check : take;
        try (PreparedStatement statement = connection.prepareStatement(sql.sql())) {
            List<String> names = sql.names();
            for (int i = 0; i < names.size(); i++) {
                int index = i + 1;
                switch (names.get(i)) {
                    case "bucket" -> statement.setString(index, permit.bucket().name());
                    case "key" -> statement.setString(index, CounterStatements.rowKey(permit.bucket(), permit.key()));
                    case "id" -> statement.setLong(index, permit.id());
                    case "limit" -> statement.setLong(index, permit.bucket().limit());
                    case "lease" -> statement.setLong(index, permit.leaseMillis());
                    case "now" -> parameters.bindNow(statement, index);
                    default -> throw new IllegalStateException("unbound parameter :" + names.get(i));
                }
            }
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    throw new SQLException("no row answered the take of a permit of bucket "
                            + permit.bucket().name());
                }
                // permits-check.sql: allowed, held; permits-take.sql: denied, count, the leases it removed.
                return permit.isCheck() ? new long[] {row.getBoolean(1) ? 1 : 0, row.getLong(2), 0}
                        : new long[] {row.getBoolean(1) ? 0 : 1, row.getLong(2), row.getLong(3)};
            }
        }
    }

    /** Gives {@code permits} back with one statement, whatever their number. */
    void giveBack(Connection connection, List<StorePermit> permits) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(giveBack.sql())) {
            bindPermits(connection, statement, giveBack, permits);
            statement.executeUpdate();
        }
    }

    /**
     * Renews the leases of {@code permits} with one statement, whatever their number.
     *
     * @return per permit, in order, {@code 1} if it was held and its lease is renewed, {@code 0} if its lease had ended
     */
    long[] renew(Connection connection, List<StorePermit> permits) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(renew.sql())) {
            bindPermits(connection, statement, renew, permits);
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    throw new SQLException("no row answered the renewal of " + permits.size() + " permits");
                }
                Object[] held = (Object[]) row.getArray(1).getArray();
                long[] answer = new long[held.length];
                for (int i = 0; i < held.length; i++) {
                    answer[i] = ((Number) held[i]).longValue();
                }
                return answer;
            }
        }
    }

    /**
     * Binds several permits by name, one element per permit in each array: {@code :buckets} the bucket's name,
     * {@code :keys} the row key ({@link CounterStatements#rowKey}), {@code :ids} the permit's id, {@code :leases} its
     * lease in milliseconds; and {@code :now} the bound instant (tests only).
     */
    private void bindPermits(Connection connection, PreparedStatement statement, NamedStatement sql,
                             List<StorePermit> permits) throws SQLException {
        int count = permits.size();
        String[] buckets = new String[count];
        String[] keys = new String[count];
        Long[] ids = new Long[count];
        Long[] leases = new Long[count];
        for (int i = 0; i < count; i++) {
            StorePermit permit = permits.get(i);
            buckets[i] = permit.bucket().name();
            keys[i] = CounterStatements.rowKey(permit.bucket(), permit.key());
            ids[i] = permit.id();
            leases[i] = permit.leaseMillis();
        }
        List<String> names = sql.names();
        for (int i = 0; i < names.size(); i++) {
            int index = i + 1;
            switch (names.get(i)) {
                case "buckets" -> statement.setArray(index, connection.createArrayOf("varchar", buckets));
                case "keys" -> statement.setArray(index, connection.createArrayOf("varchar", keys));
                case "ids" -> statement.setArray(index, connection.createArrayOf("bigint", ids));
                case "leases" -> statement.setArray(index, connection.createArrayOf("bigint", leases));
                case "now" -> parameters.bindNow(statement, index);
                default -> throw new IllegalStateException("unbound parameter :" + names.get(i));
            }
        }
    }
}
