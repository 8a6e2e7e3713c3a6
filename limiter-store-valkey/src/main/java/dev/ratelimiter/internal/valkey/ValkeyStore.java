package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.spi.FailureKind;
import dev.ratelimiter.spi.RateLimitStore;
import dev.ratelimiter.spi.StoreAnswers;
import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import dev.ratelimiter.spi.StoreBatching;
import dev.ratelimiter.spi.StoreParts;
import dev.ratelimiter.spi.StoreRefund;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.CommandObjects;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisClusterOperationException;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
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
 * <p>The script runs by EVALSHA; only an explicit NOSCRIPT reply (after a restart or SCRIPT FLUSH) sends it once
 * more by EVAL, which also caches it, and only a cluster's MOVED or ASK reply (the script did not run) sends it
 * once more: to the slot's new node, or after ASKING to the node importing the slot. A timeout is never retried,
 * since the increment may have happened. Every client error becomes a {@link StoreException} classified by
 * {@link ValkeyFailures}; a {@link FailureKind#RECONNECT} failure (READONLY from a demoted primary) first drops the
 * pooled connections, so the next calls find the current primary.
 *
 * <p>Keys of a fixed window: {@code <prefix>{<bucket>:<hashed key>}} for a bucket of one window (the layout of
 * earlier versions, so counters survive an upgrade); {@code <prefix>{<bucket>:<hashed key>}:<window>} for each
 * window of a bucket of several ({@code :1s}, {@code :1h}: {@link Bucket.Limit#windowName()}). Keys of a token
 * bucket: {@code <prefix>{<bucket>:<hashed key>}:tokens}, and {@code ...:tokens:<window>} for each of several; their
 * own names, so a replica of an earlier version never reads a token bucket's state as a count, and a bucket whose
 * algorithm changes starts afresh. Keys of a sliding window, for the same reasons:
 * {@code <prefix>{<bucket>:<hashed key>}:sliding}, and {@code ...:sliding:<window>} for each of several. One key per
 * window rather than one hash with a field per window, because a window ends by its key's expiry (PEXPIRE, PTTL),
 * which Valkey and Redis keep per key, not per hash field on every supported version. The braces make
 * {@code {<bucket>:<hashed key>}} the Redis Cluster hash tag of every window's key, so one key's windows share a
 * slot and one script decides them on one node.
 *
 * <p>Decisions that wait for a connection share round trips ({@link #consumeEach}, docs/stores.md#batching): one
 * pipeline of script calls, one per call, on one connection.
 *
 * <p>Refunds ({@link #refund}) run a second script, {@code refund.lua}, on the same keys, sent, redirected and
 * reloaded as {@code decide.lua} is.
 *
 * <p>One file of about 800 lines, on purpose: the key layout, the script's parameters, a cluster's runs by slot, the
 * redirections, the pipelines and the reading of the reply are one protocol over the same parameter arrays, each
 * step depending on the others' layout; the parts that stand alone are classes of their own ({@link ScriptArgumentEncoder},
 * {@link ValkeyClientFactory}, {@link ValkeyFailures}, {@link ValkeyClusterParts}).
 */
final class ValkeyStore implements RateLimitStore {

    static final String SCRIPT = loadScript("decide.lua");
    static final String SCRIPT_SHA = sha1(SCRIPT);
    private static final byte[] SCRIPT_BYTES = SCRIPT.getBytes(StandardCharsets.UTF_8);
    private static final byte[] SCRIPT_SHA_BYTES = SCRIPT_SHA.getBytes(StandardCharsets.US_ASCII);
    /** The script of refunds ({@link #refund}), run as {@code decide.lua} is: by EVALSHA, by EVAL after NOSCRIPT. */
    static final String REFUND_SCRIPT = loadScript("refund.lua");
    static final String REFUND_SCRIPT_SHA = sha1(REFUND_SCRIPT);
    private static final byte[] REFUND_SCRIPT_BYTES = REFUND_SCRIPT.getBytes(StandardCharsets.UTF_8);
    private static final byte[] REFUND_SCRIPT_SHA_BYTES = REFUND_SCRIPT_SHA.getBytes(StandardCharsets.US_ASCII);

    private static final CommandObjects COMMANDS = new CommandObjects();
    /**
     * What the script adds to a sliding window's count of windows, so the count says the algorithm ({@code SLIDING}
     * in decide.lua): above any count of windows ({@link Bucket#MAX_WINDOWS}), so a fixed window's count stays as it
     * was and a token bucket's negative.
     */
    static final int SLIDING_WINDOWS = 1_000;
    /** The most calls one pipeline carries: enough to amortise a round trip, small enough to keep replies short. */
    static final int MAX_CALLS_PER_ROUND_TRIP = 64;
    /**
     * Pipelines in flight at once per node: one, so the decisions that arrive meanwhile make the next pipeline as
     * large as they can (docs/stores.md#batching); two measured no faster on 2 cores.
     */
    static final int ROUND_TRIPS_IN_FLIGHT = 1;
    /** The largest limit, as the probe's limit and capacity: the probe is always allowed. */
    private static final byte[] PROBE_LIMIT = Long.toString(Bucket.MAX_LIMIT).getBytes(StandardCharsets.US_ASCII);
    /** A fixed-window item of the probe after its key: cost 1, one window, the largest limit, 1 s. */
    private static final byte[][] PROBE_FIXED_WINDOW = {{'1'}, {'1'}, PROBE_LIMIT,
            "1000".getBytes(StandardCharsets.US_ASCII)};
    /**
     * A token-bucket item of the probe after its key: cost 1, one window, the largest capacity, a token per
     * microsecond (its key lives a millisecond).
     */
    private static final byte[][] PROBE_TOKEN_BUCKET = {{'1'}, {'-', '1'}, PROBE_LIMIT, {'1'}};
    /** The suffix of the probe's token-bucket key, after the probe key's hash tag: the same slot. */
    private static final String PROBE_TOKENS = ":tokens";
    /**
     * A sliding-window item of the probe after its key: cost 1, one window ({@link #SLIDING_WINDOWS} + 1), the
     * largest limit, 1 s (its key lives 2 s).
     */
    private static final byte[][] PROBE_SLIDING_WINDOW = {{'1'},
            Long.toString(SLIDING_WINDOWS + 1).getBytes(StandardCharsets.US_ASCII), PROBE_LIMIT,
            "1000".getBytes(StandardCharsets.US_ASCII)};
    /** The suffix of the probe's sliding-window key, after the probe key's hash tag: the same slot. */
    private static final String PROBE_SLIDING = ":sliding";

    private final Supplier<ValkeyClient> clients;
    private final String keyPrefix;
    private final ScriptArgumentEncoder arguments;
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
        this(clients, keyPrefix, Optional.empty(), batching, () -> { });
    }

    /**
     * @param clients   the client, built if need be (may throw)
     * @param keyPrefix prepended to every key
     * @param built     in cluster mode, the client if it is built, without building it: the masters become the
     *                  store's {@link #parts()}; empty otherwise
     * @param batching  how waiting decisions share round trips; empty for none
     * @param closer    closes the client, once
     */
    private ValkeyStore(Supplier<ValkeyClient> clients, String keyPrefix,
                        Optional<Supplier<Optional<ValkeyClient>>> built, Optional<StoreBatching> batching,
                        Runnable closer) {
        this.clients = Objects.requireNonNull(clients, "clients");
        this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
        this.arguments = new ScriptArgumentEncoder(keyPrefix);
        this.parts = built.map(b -> new ValkeyClusterParts(b, clients, this, keyPrefix)).orElse(null);
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
        ValkeyClientFactory prepared = ValkeyClientFactory.of(settings);
        LazyClient client = new LazyClient(prepared);
        ValkeyStore store = new ValkeyStore(client, settings.keyPrefix(),
                prepared.cluster() ? Optional.of(client::built) : Optional.empty(), batching(settings), client::close);
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
        inSlotRuns(items.size(), i -> slot(items.get(i)), (from, to) -> {
            long[] run = answer(decide(items, from, to));
            answer[0] = concat(answer[0], run);
            return !refused(run, items, from); // after a refusal, the later items are neither decided nor counted
        });
        return answer[0];
    }

    /** One script call for the entries from {@code from} to {@code to} (excluded); false to stop the rest. */
    private interface Run {
        boolean call(int from, int to) throws StoreException;
    }

    /**
     * Calls {@code run} on the entries from 0 to {@code size}: all at once outside a cluster; in a cluster, where a
     * script may only touch keys of one slot, once per run of consecutive entries in the same slot, in order, until
     * a run answers false.
     */
    private void inSlotRuns(int size, java.util.function.IntUnaryOperator slotOf, Run run) throws StoreException {
        boolean cluster;
        try {
            cluster = clients.get().isCluster();
        } catch (RuntimeException e) {
            throw failed(null, e);
        }
        if (!cluster) {
            run.call(0, size);
            return;
        }
        int from = 0;
        int slot = slotOf.applyAsInt(0);
        for (int i = 1; i <= size; i++) {
            int next = i < size ? slotOf.applyAsInt(i) : -1;
            if (next != slot) {
                if (!run.call(from, i)) {
                    return;
                }
                from = i;
                slot = next;
            }
        }
    }

    /**
     * The calls as one pipeline of script calls, one per call, on one connection (docs/stores.md#batching): the
     * pool's, or in a cluster the connection to the master of the first call's slot. Each script call decides its
     * call as {@link #consume} does. The calls answered NOSCRIPT (not run) go once more, in one pipeline by EVAL. A
     * call the server did not run otherwise (a cluster's MOVED or ASK, or in a cluster a call whose keys lie in
     * several slots) answers {@code null}, for the library to send alone. Any other error reply, or a failure of
     * the connection, fails the whole round trip and is never replayed.
     */
    @Override
    public long[][] consumeEach(List<List<StoreItem>> calls) throws StoreException {
        ValkeyClient client = null;
        try {
            client = clients.get();
            boolean cluster = client.isCluster();
            HostAndPort node = cluster ? client.clusterNodeOf(slot(calls.get(0).get(0))) : null;
            long[][] answers = new long[calls.size()][];
            if (cluster && node == null) {
                return answers; // the slot map is being re-read: each goes alone
            }
            boolean[] send = new boolean[calls.size()];
            for (int i = 0; i < send.length; i++) {
                send[i] = !cluster || oneSlot(calls.get(i));
            }
            // EVALSHA first; the calls the server answered NOSCRIPT (after a restart or SCRIPT FLUSH: not run) go
            // once more in one pipeline by EVAL, which also caches the script.
            boolean[] noScript = pipeline(client, node, calls, send, false, answers);
            if (noScript != null) {
                pipeline(client, node, calls, noScript, true, answers);
            }
            return answers;
        } catch (RuntimeException e) {
            throw failed(client, e);
        }
    }

    /**
     * One pipeline of the calls marked in {@code send}, by EVALSHA or by EVAL, writing each answer into
     * {@code answers}; a call redirected by a cluster (not run) keeps its {@code null}.
     *
     * @return the calls answered NOSCRIPT, or {@code null} if none was
     */
    private boolean[] pipeline(ValkeyClient client, HostAndPort node, List<List<StoreItem>> calls, boolean[] send,
                               boolean eval, long[][] answers) {
        @SuppressWarnings("unchecked")
        Response<Object>[] replies = new Response[calls.size()];
        try (AbstractPipeline pipeline = node != null
                ? new Pipeline(client.clusterNode(node), true)
                : client.commands().pipelined()) {
            for (int i = 0; i < replies.length; i++) {
                if (!send[i]) {
                    continue;
                }
                List<StoreItem> call = calls.get(i);
                byte[][] parameters;
                int keyCount;
                if (call.size() == 1) {
                    StoreItem item = call.get(0);
                    ScriptArgumentEncoder.OfBucket ofBucket = arguments.of(item.bucket());
                    parameters = ofBucket.parameters(item.key(), item.cost());
                    keyCount = ofBucket.keyCount();
                } else {
                    int[] keys = new int[1];
                    parameters = parameters(call, 0, call.size(), keys);
                    keyCount = keys[0];
                }
                replies[i] = eval ? pipeline.eval(SCRIPT_BYTES, keyCount, parameters)
                        : pipeline.evalsha(SCRIPT_SHA_BYTES, keyCount, parameters);
            }
            pipeline.sync();
        }
        boolean[] noScript = null;
        for (int i = 0; i < replies.length; i++) {
            if (replies[i] == null) {
                continue;
            }
            try {
                answers[i] = answer(replies[i].get());
            } catch (JedisNoScriptException e) {
                if (noScript == null) {
                    noScript = new boolean[calls.size()];
                }
                noScript[i] = true;
            } catch (JedisRedirectionException e) {
                // not run: sent again alone, which follows the redirection
            }
        }
        return noScript;
    }

    /** Whether a call's keys share one cluster slot, as one script call needs. */
    private boolean oneSlot(List<StoreItem> call) {
        if (call.size() == 1) {
            return true;
        }
        int slot = slot(call.get(0));
        for (int i = 1; i < call.size(); i++) {
            if (slot(call.get(i)) != slot) {
                return false;
            }
        }
        return true;
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

    /** The cluster slot of an item's keys: their hash tag's. */
    private int slot(StoreItem item) {
        return slot(item.bucket(), item.key());
    }

    /** The cluster slot of every window's key of {@code key} in {@code bucket}: their hash tag's. */
    private int slot(Bucket bucket, String key) {
        return JedisClusterCRC16.getSlot(arguments.of(bucket).counterKey(key));
    }

    /** One script call for the items from {@code from} to {@code to} (excluded). */
    private Object decide(List<StoreItem> items, int from, int to) throws StoreException {
        int[] keyCount = new int[1];
        byte[][] parameters = parameters(items, from, to, keyCount);
        return decide(parameters, keyCount[0]);
    }

    /** The script's keys then arguments for the items from {@code from} to {@code to}; the key count goes in {@code keyCountOut[0]}. */
    private byte[][] parameters(List<StoreItem> items, int from, int to, int[] keyCountOut) {
        int keyCount = 0;
        int argumentCount = 0;
        for (int i = from; i < to; i++) {
            ScriptArgumentEncoder.OfBucket ofBucket = arguments.of(items.get(i).bucket());
            keyCount += ofBucket.keyCount();
            argumentCount += ofBucket.argumentCount();
        }
        byte[][] parameters = new byte[keyCount + argumentCount][];
        int key = 0;
        int argument = keyCount;
        for (int i = from; i < to; i++) {
            StoreItem item = items.get(i);
            ScriptArgumentEncoder.OfBucket ofBucket = arguments.of(item.bucket());
            ofBucket.putKeys(item.key(), parameters, key);
            ofBucket.putArguments(item.cost(), parameters, argument);
            key += ofBucket.keyCount();
            argument += ofBucket.argumentCount();
        }
        keyCountOut[0] = keyCount;
        return parameters;
    }

    /** The script's reply, a list of integers, as the SPI's numbers. */
    private static long[] answer(Object reply) {
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
            inSlotRuns(refunds.size(), i -> slot(refunds.get(i).bucket(), refunds.get(i).key()), (from, to) -> {
                refund(refunds, from, to);
                return true;
            });
        }
    }

    /** One call of {@code refund.lua} for the refunds from {@code from} to {@code to} (excluded). */
    private void refund(List<StoreRefund> refunds, int from, int to) throws StoreException {
        String[][] texts = new String[to - from][];
        int keyCount = 0;
        int argumentCount = 0;
        for (int i = from; i < to; i++) {
            keyCount += arguments.of(refunds.get(i).bucket()).keyCount();
            texts[i - from] = refundArguments(refunds.get(i));
            argumentCount += texts[i - from].length;
        }
        byte[][] parameters = new byte[keyCount + argumentCount][];
        int key = 0;
        int argument = keyCount;
        for (int i = from; i < to; i++) {
            ScriptArgumentEncoder.OfBucket ofBucket = arguments.of(refunds.get(i).bucket());
            ofBucket.putKeys(refunds.get(i).key(), parameters, key);
            key += ofBucket.keyCount();
            for (String text : texts[i - from]) {
                parameters[argument++] = text.getBytes(StandardCharsets.US_ASCII);
            }
        }
        runScript(REFUND_SCRIPT_SHA_BYTES, REFUND_SCRIPT_BYTES, parameters, keyCount);
    }

    /**
     * {@code refund.lua}'s arguments for one refund, as text (refunds are not on the hot path): the cost, the count
     * of windows ({@link #windowCount}, which says the algorithm), then per window a fixed or sliding window's
     * length in milliseconds and the refund's milliseconds until the window it was counted in ends, or a token
     * bucket's capacity and token interval in microseconds.
     */
    static String[] refundArguments(StoreRefund refund) {
        Bucket bucket = refund.bucket();
        List<Bucket.Limit> limits = bucket.limits();
        String[] arguments = new String[2 + 2 * limits.size()];
        arguments[0] = Long.toString(refund.cost());
        arguments[1] = Integer.toString(windowCount(bucket));
        for (int i = 0; i < limits.size(); i++) {
            if (bucket.isTokenBucket()) {
                arguments[2 + 2 * i] = Long.toString(bucket.capacity(i));
                arguments[3 + 2 * i] = Long.toString(bucket.tokenIntervalMicros(i));
            } else {
                arguments[2 + 2 * i] = Long.toString(limits.get(i).window().toMillis());
                arguments[3 + 2 * i] = Long.toString(refund.endsInMillis()[i]);
            }
        }
        return arguments;
    }

    @Override
    public void reset(Bucket bucket, String key) throws StoreException {
        ValkeyClient client = null;
        try {
            client = clients.get();
            client.commands().del(counterKeys(bucket, key));
        } catch (RuntimeException e) {
            throw failed(client, e);
        }
    }

    /**
     * The circuit breaker's probe: the decision's own write path, the script on the key {@code <prefix>{probe}}
     * with a 1 s window, so a server that answers reads but refuses writes (a demoted primary, a full server)
     * keeps the breaker open (docs/operations.md#when-a-shared-store-fails). Then a token bucket on
     * {@code <prefix>{probe}:tokens} and a sliding window on {@code <prefix>{probe}:sliding}, so the probe runs the
     * commands of every algorithm and an ACL user refused one of them keeps the store degraded instead of failing
     * each request of its buckets. Three calls of one item each, not one of three: a server that requires a
     * password closes an unauthenticated connection at a command of more than 10 parts, which would hide its NOAUTH
     * reply.
     *
     * @throws StoreException if the script does not run in time
     */
    @Override
    public void probe() throws StoreException {
        String key = keyPrefix + "{probe}";
        decide(probeParameters(key, PROBE_FIXED_WINDOW), 1);
        decide(probeParameters(key + PROBE_TOKENS, PROBE_TOKEN_BUCKET), 1);
        decide(probeParameters(key + PROBE_SLIDING, PROBE_SLIDING_WINDOW), 1);
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

    /**
     * Runs the script once; follows a cluster's MOVED or ASK reply once, to the node it names, since either means
     * the script did not run. Timeouts are never retried: their increment may have happened.
     *
     * @return the script's reply
     */
    private Object decide(byte[][] parameters, int keyCount) throws StoreException {
        return runScript(SCRIPT_SHA_BYTES, SCRIPT_BYTES, parameters, keyCount);
    }

    /**
     * Runs a script ({@code decide.lua} or {@code refund.lua}) once, as {@link #decide(byte[][], int)} says: NOSCRIPT
     * sends it by EVAL, a MOVED or ASK reply is followed once, a timeout is never retried.
     *
     * @return the script's reply
     */
    private Object runScript(byte[] sha, byte[] script, byte[][] parameters, int keyCount) throws StoreException {
        ValkeyClient client = null;
        try {
            client = clients.get();
            try {
                return run(client.commands(), sha, script, parameters, keyCount);
            } catch (JedisClusterOperationException e) {
                Optional<JedisRedirectionException> redirect = onlyRedirect(e);
                if (redirect.isEmpty()) {
                    throw e;
                }
                // Sent to the node the reply names, not through the slot map: while the map is being re-read
                // (another thread may be at it) it can still name the old node.
                try (Connection node = client.clusterNode(redirect.get().getTargetNode())) {
                    return runOn(node, redirect.get() instanceof JedisAskDataException, sha, script, parameters,
                            keyCount);
                }
            }
        } catch (RuntimeException e) {
            throw failed(client, e);
        }
    }

    /**
     * The failure as the SPI's exception: classified, with what the server replied as its cause (a cluster
     * call's failure says only "No more cluster attempts left" and keeps the attempt's own failure, READONLY or a
     * refused connection, among its suppressed). A {@link FailureKind#RECONNECT} failure drops the pooled
     * connections first.
     */
    private static StoreException failed(ValkeyClient client, RuntimeException failure) {
        FailureKind kind = ValkeyFailures.classify(failure);
        if (client != null && kind == FailureKind.RECONNECT) {
            client.dropConnections();
        }
        Throwable[] attempts = failure.getSuppressed();
        Throwable reply = failure instanceof JedisClusterOperationException && attempts.length > 0
                ? attempts[attempts.length - 1] : failure;
        return new StoreException(kind, reply);
    }

    /** By bytes: the string forms encode every argument again and decode the reply through streams. */
    private static Object run(UnifiedJedis client, byte[] sha, byte[] script, byte[][] parameters, int keyCount) {
        try {
            return client.evalsha(sha, keyCount, parameters);
        } catch (JedisNoScriptException e) {
            return client.eval(script, keyCount, parameters);
        }
    }

    /** One probe call's parameters: its key, then its item's arguments. */
    private static byte[][] probeParameters(String key, byte[][] item) {
        byte[][] parameters = new byte[1 + item.length][];
        parameters[0] = key.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(item, 0, parameters, 1, item.length);
        return parameters;
    }

    /**
     * The script on one cluster node; after an ASK reply each command is preceded by ASKING, which lets the node
     * importing the slot run the next command (one only) on it.
     */
    private static Object runOn(Connection node, boolean asking, byte[] sha, byte[] script, byte[][] parameters,
                                int keyCount) {
        if (asking) {
            node.executeCommand(Protocol.Command.ASKING);
        }
        try {
            return node.executeCommand(COMMANDS.evalsha(sha, keyCount, parameters));
        } catch (JedisNoScriptException e) {
            if (asking) {
                node.executeCommand(Protocol.Command.ASKING);
            }
            return node.executeCommand(COMMANDS.eval(script, keyCount, parameters));
        }
    }

    /** The one redirection a cluster call met, if redirections are all it met (one attempt: one reply). */
    private static Optional<JedisRedirectionException> onlyRedirect(JedisClusterOperationException failure) {
        Throwable[] suppressed = failure.getSuppressed();
        if (suppressed.length == 0) {
            return Optional.empty();
        }
        for (Throwable attempt : suppressed) {
            if (!(attempt instanceof JedisRedirectionException)) {
                return Optional.empty();
            }
        }
        return Optional.of((JedisRedirectionException) suppressed[suppressed.length - 1]);
    }

    /**
     * The probe of one cluster master, as {@link #probe}: the script on {@code probeKey}, one of its slots, and on
     * its token-bucket and sliding-window keys in the same slot, sent to it directly.
     */
    void probeNode(ValkeyClient client, HostAndPort node, String probeKey) {
        try (Connection connection = client.clusterNode(node)) {
            runOn(connection, false, SCRIPT_SHA_BYTES, SCRIPT_BYTES, probeParameters(probeKey, PROBE_FIXED_WINDOW),
                    1);
            runOn(connection, false, SCRIPT_SHA_BYTES, SCRIPT_BYTES,
                    probeParameters(probeKey + PROBE_TOKENS, PROBE_TOKEN_BUCKET), 1);
            runOn(connection, false, SCRIPT_SHA_BYTES, SCRIPT_BYTES,
                    probeParameters(probeKey + PROBE_SLIDING, PROBE_SLIDING_WINDOW), 1);
        }
    }

    /**
     * {@code <prefix>{<bucket>:<hashed key>}}: the counter of a fixed-window bucket of one window, and the start of
     * every key of a bucket, whose hash tag it holds (so it gives the slot of all of them).
     */
    String counterKey(Bucket bucket, String key) {
        return keyPrefix + '{' + bucket.name() + ':' + key + '}';
    }

    /** Each window's key, in the bucket's order (see the class comment for the layout). */
    String[] counterKeys(Bucket bucket, String key) {
        String tagged = keyPrefix + '{' + bucket.name() + ':' + key;
        String[] keys = new String[bucket.limits().size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = tagged + keyEnd(bucket, i);
        }
        return keys;
    }

    /**
     * What follows the hashed key in window {@code index}'s key: {@code }} for a fixed window of one,
     * {@code }:<window>} for each of several; {@code }:tokens} and {@code }:tokens:<window>} for a token bucket;
     * {@code }:sliding} and {@code }:sliding:<window>} for a sliding window.
     */
    static String keyEnd(Bucket bucket, int index) {
        String algorithm = switch (bucket.algorithm()) {
            case FIXED_WINDOW -> "}";
            case TOKEN_BUCKET -> "}:tokens";
            case SLIDING_WINDOW -> "}:sliding";
        };
        if (!bucket.hasSeveralWindows()) {
            return algorithm;
        }
        return algorithm + ':' + bucket.limits().get(index).windowName();
    }

    /**
     * The script's count of windows for an item of {@code bucket}, which also says its algorithm: the number of
     * windows for a fixed window (so its arguments are those of earlier versions), negated for a token bucket,
     * plus {@link #SLIDING_WINDOWS} for a sliding window.
     */
    static int windowCount(Bucket bucket) {
        int windows = bucket.limits().size();
        return switch (bucket.algorithm()) {
            case FIXED_WINDOW -> windows;
            case TOKEN_BUCKET -> -windows;
            case SLIDING_WINDOW -> SLIDING_WINDOWS + windows;
        };
    }

    /**
     * The script's arguments for one item, as text: the cost, the count of windows ({@link #windowCount}), then
     * per window a fixed or sliding window's limit and length in milliseconds, or a token bucket's capacity and
     * token interval in microseconds.
     */
    static String[] arguments(Bucket bucket, long cost) {
        List<Bucket.Limit> limits = bucket.limits();
        String[] arguments = new String[2 + 2 * limits.size()];
        arguments[0] = Long.toString(cost);
        arguments[1] = Integer.toString(windowCount(bucket));
        for (int i = 0; i < limits.size(); i++) {
            if (bucket.isTokenBucket()) {
                arguments[2 + 2 * i] = Long.toString(bucket.capacity(i));
                arguments[3 + 2 * i] = Long.toString(bucket.tokenIntervalMicros(i));
            } else {
                arguments[2 + 2 * i] = Long.toString(limits.get(i).limit());
                arguments[3 + 2 * i] = Long.toString(limits.get(i).window().toMillis());
            }
        }
        return arguments;
    }

    private static String loadScript(String name) {
        try (InputStream in = ValkeyStore.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The client built at its first use and again by a later use if building failed (a Sentinel or Cluster client
     * connects when built), with the eviction-policy warning once it is built.
     */
    private static final class LazyClient implements Supplier<ValkeyClient> {

        private final ValkeyClientFactory clients;
        private final EvictionPolicyCheck evictionPolicy = new EvictionPolicyCheck();
        private volatile ValkeyClient client;
        private boolean closed; // guarded by this

        LazyClient(ValkeyClientFactory clients) {
            this.clients = clients;
        }

        @Override
        public ValkeyClient get() {
            ValkeyClient current = client;
            if (current != null) {
                return current;
            }
            synchronized (this) {
                if (closed) {
                    throw new IllegalStateException("the rate limiter is stopping");
                }
                if (client == null) {
                    client = clients.connect();
                    evictionPolicy.warnIfEvicting(client);
                }
                return client;
            }
        }

        Optional<ValkeyClient> built() {
            return Optional.ofNullable(client);
        }

        synchronized void close() {
            closed = true;
            if (client != null) {
                client.close();
            }
        }
    }
}
