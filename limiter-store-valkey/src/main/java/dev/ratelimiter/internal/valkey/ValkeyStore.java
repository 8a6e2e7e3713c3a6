package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreBatching;
import dev.ratelimiter.spi.StoreAnswers;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreParts;
import dev.ratelimiter.spi.StorePermit;
import dev.ratelimiter.spi.StoreRefund;

import java.util.List;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Fixed windows, token buckets and sliding windows in Valkey or Redis: one Lua script ({@code decide.lua}), one
 * round trip for every item of a call (in a cluster: one per run of consecutive items whose keys share a slot, since
 * a script may only touch the keys of one slot), whatever the items' algorithms. The script decides the items in
 * order, each over every window of its bucket by its bucket's algorithm, atomically, and stops at the first refused
 * item. A fixed window reads each window's count and PTTL and writes (INCRBY, then PEXPIRE for a window that opens)
 * only when every window has room for the cost. A token bucket reads each window's time until full from its key's
 * PTTL and value and writes (SET with PX) only when every window has the tokens. A sliding window reads each
 * window's current and previous counts from its key's value and where its windows stand from its PTTL (the key
 * expires one window length after its current window ends), and writes (SET, keeping the expiry or setting it) only
 * when every window has room. Either way a window's time is its key's expiry, so the server's clock times every
 * replica's windows, and the script needs no TIME. A key left by a longer window or a larger token bucket of the same
 * name (the bucket's settings changed) is shortened at the first call that reads it, allowed or refused: its expiry
 * brought within the call's window (a sliding window's within two), a token bucket's time owed to a full refill
 * (docs/stores.md#counters-across-a-change-of-settings). In a cluster, a call whose later run fails throws, and the items
 * of its earlier runs stay counted (as after a timeout, the SPI's "an increment may have happened").
 *
 * <p>The store implements the SPI over small parts, one job each: {@link ScriptRunner} runs a script (EVALSHA, EVAL
 * after NOSCRIPT, a cluster's MOVED or ASK followed once, no retry after a timeout) and {@link ValkeyFailures}
 * classifies its failures; {@link KeyLayout} names the keys and {@link ScriptArgumentEncoder} encodes the scripts'
 * keys and arguments; {@link SlotGrouper} splits a call into runs of one cluster slot; {@link DecisionPipeline}
 * sends the decisions that wait for a connection in one pipeline ({@link #consumeEach}, docs/stores.md#batching);
 * {@link ValkeyProbe} is the breaker's probe and {@link ValkeyClusterParts} a cluster's masters as parts.
 *
 * <p>Refunds ({@link #refund}) run a second script, {@code refund.lua}, on the same keys, sent, redirected and
 * reloaded as {@code decide.lua} is. A concurrency bucket's permits ({@link #take}, {@link #giveBack},
 * {@link #renew}) run a third, {@code permits.lua}, on a sorted set of leases per key ({@link ValkeyPermits}).
 */
final class ValkeyStore implements RateLimitStore {

    /** The most calls one pipeline carries: enough to amortise a round trip, small enough to keep replies short. */
    static final int MAX_CALLS_PER_ROUND_TRIP = 64;
    /**
     * Pipelines in flight at once per node: two, so the client's work on one answer overlaps the server's on the
     * next pipeline, while the decisions that arrive meanwhile still share round trips (docs/stores.md#batching).
     * Measured on 2 cores, 10 000 keys, decisions/s of the decision path in two quiet rounds: 16 threads 56 600 and
     * 56 800 against 55 200 and 56 100 with one; 64 threads 74 500 and 75 300 against 68 400 and 68 700 (issue 54).
     */
    static final int ROUND_TRIPS_IN_FLIGHT = 2;

    private final Supplier<ValkeyClient> clients;
    private final KeyLayout keys;
    private final ScriptArgumentEncoder arguments;
    private final ScriptRunner runner;
    private final SlotGrouper slots;
    private final DecisionPipeline pipeline;
    private final ValkeyPermits permits;
    private final ValkeyProbe probe;
    private final StoreParts parts; // null unless cluster
    private final Runnable closer;
    private final StoreBatching batching; // null when off

    /**
     * A store over a client the caller owns and closes, with no parts: one breaker for the whole store.
     *
     * @param clients   the client (standalone, Sentinel or Cluster); it may throw while the store cannot be
     *                  reached, which counts as a failure of the call
     * @param keyPrefix prepended to every key
     */
    ValkeyStore(Supplier<ValkeyClient> clients, String keyPrefix) {
        this(clients, keyPrefix, Optional.empty());
    }

    /**
     * A store over a client the caller owns and closes, with no parts, batching as given.
     *
     * @param clients   the client (standalone, Sentinel or Cluster)
     * @param keyPrefix prepended to every key
     * @param batching  how waiting decisions share round trips; empty for none
     */
    ValkeyStore(Supplier<ValkeyClient> clients, String keyPrefix, Optional<StoreBatching> batching) {
        this(clients, keyPrefix, Optional.empty(), batching, () -> { }, InstantSource.system());
    }

    /**
     * A store over a client the caller owns and closes, with no parts and no batching, whose calendar windows end
     * by {@code clock} (a test's).
     *
     * @param clients   the client (standalone, Sentinel or Cluster)
     * @param keyPrefix prepended to every key
     * @param clock     the library's clock, which a calendar window's boundary is worked out from
     */
    ValkeyStore(Supplier<ValkeyClient> clients, String keyPrefix, InstantSource clock) {
        this(clients, keyPrefix, Optional.empty(), Optional.empty(), () -> { }, clock);
    }

    /**
     * @param clients   the client, built if need be (may throw)
     * @param keyPrefix prepended to every key
     * @param built     in cluster mode, the client if it is built, without building it: the masters become the
     *                  store's {@link #parts()}; empty otherwise
     * @param batching  how waiting decisions share round trips; empty for none
     * @param closer    closes the client, once
     * @param clock     the library's clock: a calendar window's boundary is worked out from it, and the key then
     *                  expires after the time left until it, on the server's clock (no TIME is read)
     */
    private ValkeyStore(Supplier<ValkeyClient> clients, String keyPrefix,
                        Optional<Supplier<Optional<ValkeyClient>>> built, Optional<StoreBatching> batching,
                        Runnable closer, InstantSource clock) {
        this.clients = Objects.requireNonNull(clients, "clients");
        this.keys = new KeyLayout(Objects.requireNonNull(keyPrefix, "keyPrefix"));
        this.arguments = new ScriptArgumentEncoder(keys, clock);
        this.runner = new ScriptRunner(clients);
        this.slots = new SlotGrouper(clients, arguments);
        this.pipeline = new DecisionPipeline(clients, arguments, slots);
        this.permits = new ValkeyPermits(runner, arguments, slots);
        this.probe = new ValkeyProbe(runner, keyPrefix);
        this.parts = built.map(b -> new ValkeyClusterParts(b, clients, keys, probe)).orElse(null);
        this.closer = closer;
        this.batching = batching.orElse(null);
    }

    /**
     * Builds the store from checked settings: a standalone client at once (it connects at its first call), a
     * Sentinel or Cluster client at the first call and again by a later call if that failed (those connect when
     * built). So a store that is down at startup leaves the application deployed and degraded, while a bad URL or
     * trust store fails the deployment. Where the server is up and lets the client read its
     * {@code maxmemory-policy}, a policy that may evict counters is warned about once the client is built.
     *
     * @throws dev.ratelimiter.spi.ConfigurationException naming {@code ratelimiter.valkey.url},
     *                                                     {@code .trust-store} or {@code .trust-store-password}
     */
    static ValkeyStore start(ValkeySettings settings) {
        return start(settings, InstantSource.system());
    }

    /** {@link #start(ValkeySettings)}, calendar windows ending by {@code clock}, the library's. */
    static ValkeyStore start(ValkeySettings settings, InstantSource clock) {
        ValkeyClientFactory prepared = ValkeyClientFactory.of(settings);
        LazyClient client = new LazyClient(prepared);
        ValkeyStore store = new ValkeyStore(client, settings.keyPrefix(),
                prepared.cluster() ? Optional.of(client::built) : Optional.empty(), batching(settings), client::close,
                clock);
        if (!prepared.connectsWhenBuilt()) {
            client.get();
        }
        return store;
    }

    /**
     * Batching as {@code ratelimiter.valkey.batching} says: up to {@link #MAX_CALLS_PER_ROUND_TRIP} calls per
     * pipeline, {@link #ROUND_TRIPS_IN_FLIGHT} pipelines in flight per node (fewer if the pool is smaller), and a
     * waiting call waits at most the pool's own wait, {@code ratelimiter.valkey.timeout}.
     */
    static Optional<StoreBatching> batching(ValkeySettings settings) {
        return settings.batching()
                ? Optional.of(new StoreBatching(MAX_CALLS_PER_ROUND_TRIP,
                        Math.min(ROUND_TRIPS_IN_FLIGHT, settings.poolSize()), settings.timeout()))
                : Optional.empty();
    }

    @Override
    public long[] consume(List<StoreItem> items) throws StoreException {
        if (items.size() == 1) { // nearly every call: no slot to compute, no list to walk
            StoreItem item = items.get(0);
            ScriptArgumentEncoder.OfBucket ofBucket = arguments.of(item.bucket());
            return answer(decide(ofBucket.parameters(item.key(), item.cost()), ofBucket.keyCount()));
        }
        if (items.isEmpty()) {
            return new long[0];
        }
        long[][] answer = {new long[0]};
        slots.inSlotRuns(items.size(), i -> slots.slot(items.get(i)), (from, to) -> {
            long[] run = answer(decide(items, from, to));
            answer[0] = concat(answer[0], run);
            return !refused(run, items, from); // after a refusal, the later items are neither decided nor counted
        });
        return answer[0];
    }

    /**
     * The calls as one pipeline of script calls, one per call, on one connection (docs/stores.md#batching), as
     * {@link DecisionPipeline#consumeEach} says: a call the server did not run (a cluster's MOVED or ASK, or in a
     * cluster a call whose keys lie in several slots) answers {@code null}, for the library to send alone.
     */
    @Override
    public long[][] consumeEach(List<List<StoreItem>> calls) throws StoreException {
        return pipeline.consumeEach(calls);
    }

    /** Whether and how calls share round trips: off by {@code ratelimiter.valkey.batching=false}. */
    @Override
    public Optional<StoreBatching> batching() {
        return Optional.ofNullable(batching);
    }

    /** Whether an item of a run was refused: the script's answer then ends with it. */
    private static boolean refused(long[] run, List<StoreItem> items, int from) {
        int offset = 0;
        for (int i = from; offset < run.length; i++) {
            if (!StoreAnswers.allowed(run, offset)) {
                return true;
            }
            offset += StoreAnswers.length(items.get(i).bucket());
        }
        return false;
    }

    private static long[] concat(long[] first, long[] second) {
        if (first.length == 0) {
            return second;
        }
        long[] both = java.util.Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    /**
     * Runs {@code decide.lua} once, as {@link ScriptRunner#run} does.
     *
     * @return the script's reply
     */
    private Object decide(byte[][] parameters, int keyCount) throws StoreException {
        return runner.run(ValkeyScript.DECIDE, parameters, keyCount);
    }

    /** One script call for the items from {@code from} to {@code to} (excluded). */
    private Object decide(List<StoreItem> items, int from, int to) throws StoreException {
        int[] keyCount = new int[1];
        byte[][] parameters = arguments.parameters(items, from, to, keyCount);
        return decide(parameters, keyCount[0]);
    }

    /** The script's reply, a list of integers, as the SPI's numbers. */
    static long[] answer(Object reply) {
        List<?> values = (List<?>) reply;
        long[] answer = new long[values.size()];
        for (int i = 0; i < answer.length; i++) {
            answer[i] = (Long) values.get(i);
        }
        return answer;
    }

    /**
     * Gives the refunds back by {@code refund.lua}, in one round trip (in a cluster: one per run of consecutive
     * refunds whose keys share a slot, as {@link #consume} does). Per window the script finds the window the call
     * was counted in by its key's PTTL, the window's end on the server's clock, compared with the refund's
     * reckoning by {@link StoreRefund#sameWindow}'s test, and lowers its count keeping the expiry (INCRBY; SET with
     * KEEPTTL for a sliding window's current count); a token bucket's time until full, kept as its key's expiry,
     * is shortened by cost × interval. No key is created. In a cluster, a later run that fails throws, and the
     * refunds of the earlier runs stay given back.
     *
     * @throws StoreException classified by {@link ValkeyFailures}, as a decision's failure is
     */
    @Override
    public void refund(List<StoreRefund> refunds) throws StoreException {
        if (refunds.size() == 1) {
            refund(refunds, 0, 1);
        } else if (!refunds.isEmpty()) {
            slots.inSlotRuns(refunds.size(), i -> slots.slot(refunds.get(i).bucket(), refunds.get(i).key()),
                    (from, to) -> {
                        refund(refunds, from, to);
                        return true;
                    });
        }
    }

    /** One call of {@code refund.lua} for the refunds from {@code from} to {@code to} (excluded). */
    private void refund(List<StoreRefund> refunds, int from, int to) throws StoreException {
        int[] keyCount = new int[1];
        byte[][] parameters = arguments.refundParameters(refunds, from, to, keyCount);
        runner.run(ValkeyScript.REFUND, parameters, keyCount[0]);
    }

    /**
     * Takes a permit of a concurrency bucket by {@code permits.lua}, in one round trip ({@link ValkeyPermits#take}):
     * the key's ended leases dropped, then the permit renewed if held, else added if fewer than the limit are held,
     * deadlines on the server's clock.
     *
     * @throws StoreException classified by {@link ValkeyFailures}
     */
    @Override
    public long[] take(StorePermit permit) throws StoreException {
        return permits.take(permit);
    }

    /**
     * Gives permits back by {@code permits.lua}, in one round trip (in a cluster: one per run of consecutive
     * permits whose keys share a slot); idempotent ({@link ValkeyPermits#giveBack}).
     *
     * @throws StoreException classified by {@link ValkeyFailures}
     */
    @Override
    public void giveBack(List<StorePermit> permits) throws StoreException {
        this.permits.giveBack(permits);
    }

    /**
     * Renews the leases of permits still held by {@code permits.lua}, in one round trip (in a cluster: one per run
     * of consecutive permits whose keys share a slot; {@link ValkeyPermits#renew}).
     *
     * @throws StoreException classified by {@link ValkeyFailures}
     */
    @Override
    public long[] renew(List<StorePermit> permits) throws StoreException {
        return this.permits.renew(permits);
    }

    /** Deletes the key's windows, or a concurrency bucket's permits ({@link KeyLayout#keysOf}), by one DEL. */
    @Override
    public void reset(Bucket bucket, String key) throws StoreException {
        ValkeyClient client = null;
        try {
            client = clients.get();
            client.commands().del(keys.keysOf(bucket, key));
        } catch (RuntimeException e) {
            throw ValkeyFailures.failed(client, e);
        }
    }

    /**
     * The circuit breaker's probe, {@link ValkeyProbe#probe}: {@code decide.lua} on the probe's keys, one call per
     * algorithm, so a server that refuses writes or an ACL user refused one of the commands keeps the breaker open.
     *
     * @throws StoreException if the script does not run in time
     */
    @Override
    public void probe() throws StoreException {
        probe.probe();
    }

    /** Always: every call is a network round trip. */
    @Override
    public boolean blocking() {
        return true;
    }

    /**
     * In cluster mode, the masters as parts the breaker watches one by one (a master down sends only its own keys
     * to the outage policy); empty otherwise.
     */
    @Override
    public Optional<StoreParts> parts() {
        return Optional.ofNullable(parts);
    }

    @Override
    public void close() {
        closer.run();
    }

    /** The client, built if need be, for the tests that read the keys. */
    ValkeyClient client() {
        return clients.get();
    }

    /** The store's key layout, for the tests that read the keys. */
    KeyLayout keys() {
        return keys;
    }
}
