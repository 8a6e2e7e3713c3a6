package dev.ratelimiter.internal.core.window;

import dev.ratelimiter.Bucket;
import dev.ratelimiter.Sweepable;
import dev.ratelimiter.Verdict;
import dev.ratelimiter.internal.core.time.ForwardOnlyClock;
import dev.ratelimiter.internal.core.verdict.FixedWindows;
import dev.ratelimiter.internal.core.verdict.SlidingWindow;
import dev.ratelimiter.internal.core.verdict.SlidingWindows;
import dev.ratelimiter.internal.core.verdict.TokenBuckets;
import dev.ratelimiter.internal.core.verdict.Verdicts;
import dev.ratelimiter.spi.StoreRefund;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Fixed windows, token buckets and sliding windows in this process's memory: the embedded default, and the fallback
 * of a shared store.
 *
 * <p>A one-window bucket is exact under concurrency without locks: for a fixed window, each key has one cell whose
 * current window is swapped by compare-and-set when a window opens (the only allocation), and whose count grows in
 * place by compare-and-set only when the call's cost fits; for a token bucket, one number per key, the time it is full
 * again, moved on by compare-and-set only when the tokens are there (docs/guide.md#token-buckets). Either way a
 * refused call changes nothing. A bucket of several windows keeps, per key, one small state with each window's count
 * and end (or time until full), decided under that state's lock, so the windows are decided together and a refusal
 * by one counts in none (docs/guide.md#several-windows-per-bucket). A sliding window, of one window or several, keeps
 * each window's current count, previous count and end under such a lock (docs/guide.md#sliding-windows). A
 * sweeper retires a key's state once its windows have ended, marking it before removing it, so an attempt can never be
 * counted in a state that has left the map.
 *
 * <p>A key's state meets its bucket's changed settings (a reload or a restart) at its next call, as every store's
 * does (docs/stores.md#counters-across-a-change-of-settings): under a shorter window, a window opened under a longer
 * one ends within the new length, its count kept; a token bucket's time owed is kept at most a full refill; several
 * windows keep the counts of the lengths they had; one window to several or back, or another algorithm, starts
 * afresh.
 *
 * <p>Each bucket holds at most {@code maxKeysPerBucket} live counters. A new key beyond the cap is answered
 * {@link Verdict.Outcome#UNAVAILABLE} (the bucket's outage policy decides), counted in
 * {@link #refusedAtCap(String)} and warned about once per bucket; live counters are never evicted, since
 * evicting one would hand its key a fresh window. At the cap, ended windows of that bucket are swept at most
 * once per second before a key is refused.
 *
 * <p>Time comes from the {@link InstantSource} in milliseconds, made {@linkplain ForwardOnlyClock forward-only}: a
 * source stepped back (a wall clock set back an hour) does not keep a window shut for that hour; every window
 * ends no later than its length of elapsed time after it opened.
 *
 * <p>The hot path, an existing key of a one-window bucket, allocates only the returned verdict: the bucket's
 * counters are found by identity when the previous call used the same bucket (applications decide a few buckets,
 * each created once at startup), before falling back to the map by name; and the verdict's {@code resetAfter} is a
 * {@link Duration} the window keeps for the millisecond it was made in, since every call of that millisecond
 * reports the same one. The window's reference to it fills the object's alignment gap (a window stays 32 bytes
 * with compressed references); the kept {@code Duration} (24 bytes) lives as long as the window, for keys called
 * more than once in it: 24 bytes of heap per busy key instead of 24 bytes of garbage per call.
 *
 * <p>One file of about 1 000 lines, on purpose: the per-key states ({@code Cell}, {@code Window}, {@code TokenCell},
 * {@code SlidingCell}, {@code Span}, and the {@code State}s under a lock, {@code Windows}, {@code Tokens} and
 * {@code Sliding}) and the bucket's map ({@code Counters}) are private nested classes whose fields are changed by
 * compare-and-set and under locks that only this class takes; kept together, no other class can touch that mutable state, and the
 * sweeper's retire-then-remove protocol reads in one place.
 */
public final class MemoryRateLimiter implements RefundingLimiter, Sweepable {

    private static final System.Logger LOG = System.getLogger(MemoryRateLimiter.class.getName());
    private static final long CAP_SWEEP_SPACING_MILLIS = 1_000;
    private static final long SAME_WINDOW_MILLIS = 500;
    private static final long MICROS_PER_MILLI = 1_000;
    /** A sliding window's end when it has none: two lengths before any instant of this era, so nothing weighs. */
    private static final long NO_WINDOW = Long.MIN_VALUE / 2;

    private final InstantSource clock;
    private final int maxKeysPerBucket;
    private final Map<String, Counters> buckets = new ConcurrentHashMap<>();
    // The counters of the bucket used last. Plain, not volatile: Counters' fields are final, so a thread that reads
    // a stale or racing value still sees a whole object, and a miss only costs the map lookup.
    private Counters recent;

    /**
     * @param clock            the time source; read through {@link ForwardOnlyClock#of}
     * @param maxKeysPerBucket live counters allowed per bucket, at least 1
     * @throws IllegalArgumentException if {@code maxKeysPerBucket} is below 1
     */
    public MemoryRateLimiter(InstantSource clock, int maxKeysPerBucket) {
        this.clock = ForwardOnlyClock.of(clock);
        if (maxKeysPerBucket < 1) {
            throw new IllegalArgumentException("maxKeysPerBucket must be at least 1, was " + maxKeysPerBucket);
        }
        this.maxKeysPerBucket = maxKeysPerBucket;
    }

    @Override
    public Verdict consume(Bucket bucket, String key, long cost) {
        Counters counters = counters(bucket);
        long now = clock.millis();
        return bucket.algorithm() != Bucket.Algorithm.FIXED_WINDOW || bucket.hasSeveralWindows()
                ? consumeState(counters, bucket, key, cost, now) : consumeOne(counters, bucket, key, cost, now);
    }

    /**
     * Every bucket but a one-window fixed window: the key's {@link State}, made for the bucket's shape (a token
     * bucket of one window changed by compare-and-set, several windows under a lock). A call that counts nothing
     * (cost 0, or a cost no window could take) adds no state to a key that has none.
     */
    private Verdict consumeState(Counters counters, Bucket bucket, String key, long cost, long now) {
        if ((cost == 0 || Verdicts.needed(cost) > bucket.largestCost()) && counters.cells.get(key) == null) {
            return unopened(bucket, cost);
        }
        while (true) {
            State state = counters.state(key, bucket, now);
            if (state == null) {
                return counters.refuse(bucket);
            }
            Verdict verdict = state.decide(bucket, cost, now);
            if (verdict != null) {
                return verdict;
            }
        }
    }

    /**
     * One window, without locks or allocation beyond the verdict and an opened window: the count only grows by
     * compare-and-set when the cost fits, so a refused call leaves it as it was.
     */
    private Verdict consumeOne(Counters counters, Bucket bucket, String key, long cost, long now) {
        long limit = bucket.limit();
        long windowMillis = bucket.window().toMillis();
        long needed = Verdicts.needed(cost);
        while (true) {
            Slot slot = counters.cells.get(key);
            if (slot == null) {
                if (cost == 0 || needed > limit) {
                    return unopened(bucket, cost); // nothing to count: no window opens
                }
                if (!counters.reserve(now)) {
                    return counters.refuse(bucket);
                }
                Slot fresh = new Cell(new Window(now + windowMillis, cost));
                slot = counters.cells.putIfAbsent(key, fresh);
                if (slot == null) {
                    return FixedWindows.single(bucket, true, limit - cost, windowMillis);
                }
                counters.release();
            }
            if (!(slot instanceof Cell cell)) {
                counters.retire(key, slot); // counted under other windows (the bucket was built anew): start afresh
                continue;
            }
            Window window = cell.window;
            if (window == Window.RETIRED) {
                continue; // swept or reset a moment ago: the next lookup finds a new cell or none
            }
            if (window.endsAt - now > windowMillis) {
                // Opened under a longer window of this name (its settings changed): it ends within this window's
                // length, its count kept (docs/stores.md#counters-across-a-change-of-settings).
                window.endNoLaterThan(now + windowMillis);
            }
            if (now >= window.endsAt) {
                if (cost == 0 || needed > limit) {
                    return unopened(bucket, cost);
                }
                if (cell.replace(window, new Window(now + windowMillis, cost))) {
                    return FixedWindows.single(bucket, true, limit - cost, windowMillis);
                }
                continue;
            }
            long count = window.count();
            if (count + needed > limit) {
                return FixedWindows.single(bucket, false, limit - count, window.resetAfter(now, windowMillis));
            }
            if (cost == 0 || window.add(count, cost)) {
                return FixedWindows.single(bucket, true, limit - count - cost, window.resetAfter(now, windowMillis));
            }
        }
    }

    /**
     * The verdict for a key with no state that nothing is counted for (cost 0, or a cost above a window's
     * capacity): every window at its capacity, a fixed window's whole length to run, a token bucket full.
     */
    private static Verdict unopened(Bucket bucket, long cost) {
        int count = bucket.limits().size();
        long[] remaining = new long[count];
        long[] resetMillis = new long[count];
        boolean allowed = true;
        for (int i = 0; i < count; i++) {
            remaining[i] = bucket.capacity(i);
            resetMillis[i] = bucket.isTokenBucket() ? 0 : bucket.limits().get(i).window().toMillis();
            allowed &= Verdicts.needed(cost) <= remaining[i];
        }
        if (bucket.isSlidingWindow()) {
            return SlidingWindows.of(bucket, cost, allowed, new long[count], new long[count], resetMillis);
        }
        return bucket.isTokenBucket() ? TokenBuckets.of(bucket, cost, allowed, remaining, resetMillis)
                : FixedWindows.of(bucket, cost, allowed, remaining, resetMillis);
    }

    /**
     * Takes a shared store's verdict for a key as the key's counts here, so that this limiter, as the store's
     * fallback, goes on from what the store last said rather than from nothing
     * (docs/operations.md#what-the-fallback-knows): each window counts what the store's did (its limit less the
     * verdict's {@code remaining}) until the store's window ends ({@code resetAfter} from now). The store's counts
     * replace whatever this limiter counted for the key, so once the store answers again its counts rule. A verdict
     * that says nothing is counted (every window at its full limit) clears the key; an {@code UNAVAILABLE} verdict,
     * or one without a state per window for a bucket of several, is ignored. A new key beyond the bucket's cap
     * ({@code maxKeysPerBucket}) is not carried: the memory stays bounded, and nothing is refused for it.
     *
     * @param bucket  the bucket the store decided
     * @param key     the hashed key, as this limiter counts it
     * @param verdict the store's verdict (or a refusal kept in memory from the store)
     */
    public void carry(Bucket bucket, String key, Verdict verdict) {
        if (verdict.outcome() == Verdict.Outcome.UNAVAILABLE) {
            return;
        }
        long now = clock.millis();
        int size = bucket.limits().size();
        if (size > 1 && verdict.windows().size() != size) {
            return;
        }
        if (atCapacity(bucket, verdict)) {
            reset(bucket, key);
            return;
        }
        Counters counters = counters(bucket);
        if (bucket.algorithm() == Bucket.Algorithm.FIXED_WINDOW && size == 1) {
            carryOne(counters, key, bucket.limit() - verdict.remaining(), now + verdict.resetAfter().toMillis(), now);
            return;
        }
        while (true) {
            State state = counters.state(key, bucket, now);
            if (state == null || state.carry(bucket, verdict, now)) {
                return; // a new key beyond the cap is not carried
            }
        }
    }

    /** Whether a verdict says nothing is counted: every window with its whole capacity left. */
    private static boolean atCapacity(Bucket bucket, Verdict verdict) {
        if (!bucket.hasSeveralWindows()) {
            return verdict.remaining() >= bucket.capacity(0);
        }
        for (int i = 0; i < verdict.windows().size(); i++) {
            if (verdict.windows().get(i).remaining() < bucket.capacity(i)) {
                return false;
            }
        }
        return true;
    }

    private void carryOne(Counters counters, String key, long count, long endsAt, long now) {
        while (true) {
            Slot slot = counters.cells.get(key);
            if (slot == null) {
                if (!counters.reserve(now)) {
                    return;
                }
                if (counters.cells.putIfAbsent(key, new Cell(new Window(endsAt, count))) == null) {
                    return;
                }
                counters.release();
                continue;
            }
            if (!(slot instanceof Cell cell)) {
                counters.retire(key, slot);
                continue;
            }
            Window window = cell.window;
            if (window == Window.RETIRED) {
                continue;
            }
            // The same window as the one this key holds (the store's resetAfter moves by a millisecond or two
            // between calls; a new window ends at least a second later): the count is set in place, no allocation.
            if (Math.abs(window.endsAt - endsAt) < SAME_WINDOW_MILLIS) {
                window.set(count);
                return;
            }
            if (cell.replace(window, new Window(endsAt, count))) {
                return;
            }
        }
    }

    /**
     * Gives each refund's cost back to the windows its call was counted in, as the store SPI's rule says
     * ({@link dev.ratelimiter.spi.RateLimitStore#refund}), on this limiter's clock: a window that has ended or
     * opened since is left alone. A key with no state, or one kept under other windows, gets nothing.
     *
     * @return true: memory is always reached
     */
    @Override
    public boolean refund(List<StoreRefund> refunds) {
        long now = clock.millis();
        for (StoreRefund refund : refunds) {
            Counters counters = buckets.get(refund.bucket().name());
            if (counters != null) {
                refundOne(counters, refund, now);
            }
        }
        return true;
    }

    /** One refund, looking the key up again when its state was retired meanwhile (swept, reset, carried anew). */
    private static void refundOne(Counters counters, StoreRefund refund, long now) {
        Bucket bucket = refund.bucket();
        boolean done = false;
        while (!done) {
            Slot slot = counters.cells.get(refund.key());
            if (slot instanceof Cell cell && bucket.algorithm() == Bucket.Algorithm.FIXED_WINDOW
                    && !bucket.hasSeveralWindows()) {
                done = cell.refund(refund.cost(), refund.endsInMillis()[0], bucket.window().toMillis(), now);
            } else if (slot instanceof State state && state.matches(bucket)) {
                done = state.refund(bucket, refund.cost(), refund.endsInMillis(), now);
            } else {
                done = true; // no state, or one kept under other windows: nothing counted there to give back
            }
        }
    }

    @Override
    public void reset(Bucket bucket, String key) {
        Counters counters = buckets.get(bucket.name());
        if (counters == null) {
            return;
        }
        Slot slot = counters.cells.get(key);
        if (slot != null) {
            counters.retire(key, slot);
        }
    }

    @Override
    public long sweep() {
        long now = clock.millis();
        long swept = 0;
        for (Counters counters : buckets.values()) {
            swept += counters.sweep(now);
        }
        return swept;
    }

    /** Live counters of a bucket (including ended windows not yet swept); 0 for a bucket never used. */
    public int liveCounters(String bucketName) {
        Counters counters = buckets.get(bucketName);
        return counters == null ? 0 : counters.live.get();
    }

    /** How many attempts of new keys were refused because the bucket was at its cap, since start. */
    public long refusedAtCap(String bucketName) {
        Counters counters = buckets.get(bucketName);
        return counters == null ? 0 : counters.refused.sum();
    }

    private Counters counters(Bucket bucket) {
        Counters counters = recent;
        if (counters != null && (counters.bucket == bucket || counters.bucketName.equals(bucket.name()))) {
            return counters;
        }
        counters = buckets.get(bucket.name());
        if (counters == null) {
            counters = buckets.computeIfAbsent(bucket.name(), name -> new Counters(bucket));
        }
        recent = counters;
        return counters;
    }

    /** The counters of one bucket (by name), with its cap. */
    private final class Counters {
        final Bucket bucket; // the instance first seen under this name: the identity check of counters(Bucket)
        final String bucketName;
        final Map<String, Slot> cells = new ConcurrentHashMap<>();
        final AtomicInteger live = new AtomicInteger();
        final LongAdder refused = new LongAdder();
        final AtomicBoolean warned = new AtomicBoolean();
        final AtomicLong nextCapSweep = new AtomicLong(Long.MIN_VALUE);

        Counters(Bucket bucket) {
            this.bucket = bucket;
            this.bucketName = bucket.name();
        }

        /** Takes a slot for a new key; at the cap, first sweeps ended windows (at most once per second). */
        boolean reserve(long now) {
            if (tryReserve()) {
                return true;
            }
            long due = nextCapSweep.get();
            if (now >= due && nextCapSweep.compareAndSet(due, now + CAP_SWEEP_SPACING_MILLIS)) {
                sweep(now);
                return tryReserve();
            }
            return false;
        }

        private boolean tryReserve() {
            while (true) {
                int current = live.get();
                if (current >= maxKeysPerBucket) {
                    return false;
                }
                if (live.compareAndSet(current, current + 1)) {
                    return true;
                }
            }
        }

        void release() {
            live.decrementAndGet();
        }

        void remove(String key, Slot slot) {
            cells.remove(key, slot);
            release();
        }

        /** Retires {@code slot} and removes it, unless another thread retired it first. */
        void retire(String key, Slot slot) {
            if (slot.retire()) {
                remove(key, slot);
            }
        }

        /**
         * The key's {@link State} for a bucket of several windows or a token bucket, made if missing; null when the
         * cap leaves no room for a new key. A state kept under other windows of the same algorithm (the bucket's
         * settings changed) is carried where it can be ({@link LockedState#reshaped}: each window of a length it had
         * before keeps its count), else, as one kept under another algorithm, retired first, so the key starts
         * afresh (docs/stores.md#counters-across-a-change-of-settings).
         */
        State state(String key, Bucket bucket, long now) {
            while (true) {
                Slot slot = cells.get(key);
                if (slot == null) {
                    if (!reserve(now)) {
                        return null;
                    }
                    State fresh = switch (bucket.algorithm()) {
                        case FIXED_WINDOW -> new Windows(bucket);
                        case TOKEN_BUCKET -> bucket.hasSeveralWindows() ? new Tokens(bucket) : new TokenCell(bucket);
                        case SLIDING_WINDOW -> bucket.hasSeveralWindows() ? new Sliding(bucket)
                                : new SlidingCell(bucket);
                    };
                    slot = cells.putIfAbsent(key, fresh);
                    if (slot == null) {
                        return fresh;
                    }
                    release();
                }
                if (slot instanceof State state && state.matches(bucket)) {
                    return state;
                }
                if (slot instanceof LockedState locked) {
                    State next = locked.reshaped(bucket);
                    if (next != null) {
                        // The old state is retired and nobody else removes a retired slot: one slot for another.
                        if (cells.replace(key, slot, next)) {
                            return next;
                        }
                        continue;
                    }
                }
                retire(key, slot);
            }
        }

        Verdict refuse(Bucket bucket) {
            refused.increment();
            if (warned.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, "Bucket ''{0}'' holds {1} live counters, the cap set by "
                        + "ratelimiter.memory.max-keys: new keys get the bucket''s outage policy ({2}) until "
                        + "windows end. Warned once.", bucketName, String.valueOf(maxKeysPerBucket), bucket.onOutage());
            }
            return Verdict.unavailable(bucket.limit(), Duration.ZERO);
        }

        long sweep(long now) {
            long swept = 0;
            for (Map.Entry<String, Slot> entry : cells.entrySet()) {
                if (entry.getValue().retireIfEnded(now)) {
                    remove(entry.getKey(), entry.getValue());
                    swept++;
                }
            }
            return swept;
        }
    }

    /** Microseconds as whole milliseconds, rounded up: a token bucket's times as its verdicts give them. */
    private static long ceilMillis(long micros) {
        return (micros + MICROS_PER_MILLI - 1) / MICROS_PER_MILLI;
    }

    /** One key's state; retired (never to count again) before it leaves the map. */
    private abstract static class Slot {
        /** Retires the slot; false if it was retired already. */
        abstract boolean retire();

        /** Retires the slot if every window of it has ended at {@code now}; false otherwise. */
        abstract boolean retireIfEnded(long now);
    }

    /**
     * A key's state other than a one-window fixed window's {@link Cell}: made by {@link Counters#state} for its
     * bucket's shape, and decided or carried through these two methods, which answer null or false when the state
     * was retired meanwhile (the caller then looks the key up again).
     */
    private abstract static class State extends Slot {
        /**
         * Whether this state was kept under the bucket's algorithm and windows, not under others of its name. Limits
         * are not compared: a plan (docs/plans.md) changes them for some keys, and a key keeps its state when its
         * plan changes, decided from its next call under the call's bucket's limits.
         */
        abstract boolean matches(Bucket bucket);

        /** Decides a call at {@code now} (epoch milliseconds); null if retired. */
        abstract Verdict decide(Bucket bucket, long cost, long now);

        /** Takes a shared store's verdict for {@code bucket} as this key's state ({@link #carry}); false if retired. */
        abstract boolean carry(Bucket bucket, Verdict verdict, long now);

        /**
         * Gives {@code cost} back to the windows named by {@code endsIn} ({@link #refund}), as {@code bucket} counted
         * it; false if retired.
         */
        abstract boolean refund(Bucket bucket, long cost, long[] endsIn, long now);
    }

    /** A state of several windows, decided under its own lock, so they are decided together. */
    private abstract static class LockedState extends State {
        private boolean retired; // guarded by this

        @Override
        final synchronized Verdict decide(Bucket bucket, long cost, long now) {
            return retired ? null : decideLocked(bucket, cost, now);
        }

        @Override
        final synchronized boolean carry(Bucket bucket, Verdict verdict, long now) {
            if (!retired) {
                carryLocked(bucket, verdict, now);
            }
            return !retired;
        }

        @Override
        final synchronized boolean refund(Bucket bucket, long cost, long[] endsIn, long now) {
            if (!retired) {
                refundLocked(bucket, cost, endsIn, now);
            }
            return !retired;
        }

        @Override
        final synchronized boolean retire() {
            if (retired) {
                return false;
            }
            retired = true;
            return true;
        }

        /**
         * This state carried into a new one for {@code bucket}, of the same algorithm and other windows, and this one
         * retired; null, this one left as it is, when it cannot be carried (or was retired already).
         */
        final synchronized State reshaped(Bucket bucket) {
            if (retired) {
                return null;
            }
            State next = reshapedLocked(bucket);
            if (next != null) {
                retired = true;
            }
            return next;
        }

        /** The state {@link #reshaped} gives, read under the lock; null when none. */
        State reshapedLocked(Bucket bucket) {
            return null;
        }

        @Override
        final synchronized boolean retireIfEnded(long now) {
            if (retired || !ended(now)) {
                return false;
            }
            retired = true;
            return true;
        }

        abstract Verdict decideLocked(Bucket bucket, long cost, long now);

        abstract void carryLocked(Bucket bucket, Verdict verdict, long now);

        abstract void refundLocked(Bucket bucket, long cost, long[] endsIn, long now);

        /** Whether every window of this state has ended, or is full again, at {@code now} (epoch milliseconds). */
        abstract boolean ended(long now);
    }

    /** One key's counter of a one-window bucket: its current window, replaced when a new window opens or retired. */
    private static final class Cell extends Slot {
        private static final VarHandle WINDOW;

        static {
            try {
                WINDOW = MethodHandles.lookup().findVarHandle(Cell.class, "window", Window.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        volatile Window window;

        Cell(Window window) {
            this.window = window;
        }

        boolean replace(Window expected, Window next) {
            return WINDOW.compareAndSet(this, expected, next);
        }

        /**
         * Lowers the count of the window the refund names by {@code cost}, never below 0; false if retired. A
         * window that ended or opened since is left alone.
         */
        boolean refund(long cost, long endsIn, long windowMillis, long now) {
            while (true) {
                Window current = window;
                if (current == Window.RETIRED) {
                    return false;
                }
                if (!StoreRefund.sameWindow(endsIn, current.endsAt - now, windowMillis)) {
                    return true;
                }
                long count = current.count();
                if (count == 0 || current.add(count, -Math.min(cost, count))) {
                    return true;
                }
            }
        }

        @Override
        boolean retire() {
            while (true) {
                Window current = window;
                if (current == Window.RETIRED) {
                    return false;
                }
                if (replace(current, Window.RETIRED)) {
                    return true;
                }
            }
        }

        @Override
        boolean retireIfEnded(long now) {
            Window current = window;
            return current != Window.RETIRED && now >= current.endsAt && replace(current, Window.RETIRED);
        }
    }

    /** One window: when it ends (epoch milliseconds) and how many attempts it has counted. */
    private static final class Window {
        static final Window RETIRED = new Window(Long.MIN_VALUE, 0);
        private static final VarHandle COUNT;
        private static final VarHandle ENDS_AT;

        static {
            try {
                COUNT = MethodHandles.lookup().findVarHandle(Window.class, "count", long.class);
                ENDS_AT = MethodHandles.lookup().findVarHandle(Window.class, "endsAt", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        // Lowered only, by endNoLaterThan, when the bucket's window was shortened; else as the window opened.
        volatile long endsAt;
        @SuppressWarnings("unused") // read and updated through COUNT
        private volatile long count;
        // The last resetAfter handed out. Plain, not volatile: Duration is immutable (final fields), so a racing
        // reader sees a whole one, and resetAfter checks it is the right one before reusing it.
        private Duration resetAfter;

        Window(long endsAt, long count) {
            this.endsAt = endsAt;
            this.count = count;
        }

        long count() {
            return (long) COUNT.getVolatile(this);
        }

        /**
         * Time until this window ends at {@code now}, at most {@code windowMillis} (a window counted under a
         * longer window of the same bucket name); the same instance for every call of one millisecond.
         */
        Duration resetAfter(long now, long windowMillis) {
            long millis = Math.max(0, Math.min(endsAt - now, windowMillis));
            Duration cached = resetAfter;
            if (cached == null || cached.toMillis() != millis) {
                cached = Duration.ofMillis(millis);
                resetAfter = cached;
            }
            return cached;
        }

        /**
         * Moves the end earlier to {@code latest} if it is later, never later: a window opened under a longer
         * length of its bucket ends within the current length, with its count (by compare-and-set, so no count is
         * lost). A call whose clock read came a few milliseconds before another's opened the window may move its end
         * those milliseconds earlier: the window then ends sooner than said, never later.
         */
        void endNoLaterThan(long latest) {
            while (true) {
                long end = endsAt;
                if (end <= latest || ENDS_AT.compareAndSet(this, end, latest)) {
                    return;
                }
            }
        }

        /** Sets the count to a shared store's ({@link #carry}). */
        void set(long carried) {
            COUNT.setVolatile(this, carried);
        }

        /** Adds {@code cost} if the count is still {@code expected}; false if another attempt came first. */
        boolean add(long expected, long cost) {
            return COUNT.compareAndSet(this, expected, expected + cost);
        }
    }

    /**
     * One key's counters of a bucket of several windows: each window's count and end, read and written under this
     * object's lock, so the windows are decided together (docs/guide.md#several-windows-per-bucket).
     */
    private static final class Windows extends LockedState {
        private final long[] windowMillis;
        private final long[] counts;
        private final long[] endsAt;

        Windows(Bucket bucket) {
            int size = bucket.limits().size();
            windowMillis = new long[size];
            counts = new long[size];
            endsAt = new long[size];
            for (int i = 0; i < size; i++) {
                windowMillis[i] = bucket.limits().get(i).window().toMillis();
                endsAt[i] = Long.MIN_VALUE; // not opened: the first counted call opens it
            }
        }

        @Override
        boolean matches(Bucket bucket) {
            if (bucket.algorithm() != Bucket.Algorithm.FIXED_WINDOW || bucket.limits().size() != windowMillis.length) {
                return false;
            }
            for (int i = 0; i < windowMillis.length; i++) {
                if (bucket.limits().get(i).window().toMillis() != windowMillis[i]) {
                    return false;
                }
            }
            return true;
        }

        /** All windows allow the cost, or nothing changes. */
        @Override
        Verdict decideLocked(Bucket bucket, long cost, long now) {
            int size = windowMillis.length;
            long[] remaining = new long[size];
            long[] resetMillis = new long[size];
            long needed = Verdicts.needed(cost);
            boolean allowed = true;
            for (int i = 0; i < size; i++) {
                boolean open = now < endsAt[i];
                long count = open ? counts[i] : 0;
                remaining[i] = bucket.limits().get(i).limit() - count;
                resetMillis[i] = open ? endsAt[i] - now : windowMillis[i];
                allowed &= count + needed <= bucket.limits().get(i).limit();
            }
            if (allowed && cost > 0) {
                for (int i = 0; i < size; i++) {
                    if (now >= endsAt[i]) {
                        endsAt[i] = now + windowMillis[i];
                        counts[i] = 0;
                    }
                    counts[i] += cost;
                    remaining[i] -= cost;
                }
            }
            return FixedWindows.of(bucket, cost, allowed, remaining, resetMillis);
        }

        @Override
        void refundLocked(Bucket bucket, long cost, long[] endsIn, long now) {
            for (int i = 0; i < counts.length; i++) {
                if (StoreRefund.sameWindow(endsIn[i], endsAt[i] - now, windowMillis[i])) {
                    counts[i] = Math.max(0, counts[i] - cost);
                }
            }
        }

        /** Each window counts what the store's did (its limit less what was left) until the store's window ends. */
        @Override
        void carryLocked(Bucket bucket, Verdict verdict, long now) {
            for (int i = 0; i < counts.length; i++) {
                Verdict.Window window = verdict.windows().get(i);
                counts[i] = Math.max(0, window.limit().limit() - window.remaining());
                endsAt[i] = counts[i] == 0 ? Long.MIN_VALUE : now + window.resetAfter().toMillis();
            }
        }

        @Override
        boolean ended(long now) {
            for (long end : endsAt) {
                if (now < end) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Fixed windows of other lengths: each window of a length this state had keeps its count and end; a window
         * of a new length opens at its first counted call, as Valkey's keys, named by length, do
         * (docs/stores.md#counters-across-a-change-of-settings).
         */
        @Override
        State reshapedLocked(Bucket bucket) {
            if (bucket.algorithm() != Bucket.Algorithm.FIXED_WINDOW || !bucket.hasSeveralWindows()) {
                return null;
            }
            Windows next = new Windows(bucket);
            for (int i = 0; i < next.windowMillis.length; i++) {
                for (int j = 0; j < windowMillis.length; j++) {
                    if (windowMillis[j] == next.windowMillis[i]) {
                        next.counts[i] = counts[j];
                        next.endsAt[i] = endsAt[j];
                    }
                }
            }
            return next;
        }
    }

    /**
     * One key's token bucket of a one-window bucket: its theoretical arrival time (epoch microseconds, when it is
     * full again), changed only by compare-and-set; {@link Long#MIN_VALUE} once retired. The interval and capacity
     * of the bucket it was made for are kept with it, computed once, so a decision under that bucket divides
     * nothing; under another of its name (a plan's limits, docs/plans.md) they are the call's bucket's, and the TAT
     * carries: the time owed until full is read under the call's capacity and rate, at most empty.
     */
    private static final class TokenCell extends State {
        private static final long RETIRED = Long.MIN_VALUE;
        private static final VarHandle TAT;

        static {
            try {
                TAT = MethodHandles.lookup().findVarHandle(TokenCell.class, "tat", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Bucket shape; // the bucket it was made for, whose numbers are those below
        private final long interval;
        private final long capacity;
        private final long capacityMicros;
        private final long fillMillis;
        @SuppressWarnings("unused") // read and updated through TAT
        private volatile long tat = RETIRED + 1; // full: any instant of this era is later

        TokenCell(Bucket bucket) {
            shape = bucket;
            interval = bucket.tokenIntervalMicros(0);
            capacity = bucket.capacity(0);
            capacityMicros = capacity * interval;
            fillMillis = ceilMillis(capacityMicros);
        }

        /**
         * Any token bucket of one window: its TAT carries under another capacity, rate or window of its name (a plan,
         * or settings changed), read as at most a full refill (docs/stores.md#counters-across-a-change-of-settings).
         */
        @Override
        boolean matches(Bucket bucket) {
            return bucket == shape || bucket.isTokenBucket() && !bucket.hasSeveralWindows();
        }

        @Override
        Verdict decide(Bucket bucket, long cost, long nowMillis) {
            boolean own = bucket == shape;
            long interval = own ? this.interval : bucket.tokenIntervalMicros(0);
            long capacity = own ? this.capacity : bucket.capacity(0);
            long capacityMicros = own ? this.capacityMicros : capacity * interval;
            long fillMillis = own ? this.fillMillis : ceilMillis(capacityMicros);
            long now = nowMillis * MICROS_PER_MILLI;
            long needed = Verdicts.needed(cost);
            while (true) {
                long current = (long) TAT.getVolatile(this);
                if (current == RETIRED) {
                    return null;
                }
                // At most empty: a key owing more time than this capacity holds (its plan's was larger, or slower,
                // or its window longer) owes a full refill under this one, as every store reads it (docs/plans.md).
                long unclamped = Math.max(current, now) - now;
                long owed = Math.min(unclamped, capacityMicros);
                boolean allowed = needed <= capacity && owed + needed * interval <= capacityMicros;
                if (allowed && cost > 0) {
                    long next = owed + cost * interval;
                    if (!TAT.compareAndSet(this, current, now + next)) {
                        continue;
                    }
                    owed = next;
                } else if (unclamped > capacityMicros && !TAT.compareAndSet(this, current, now + capacityMicros)) {
                    // The clamp is kept, so the bucket refills from now as its verdict says, not from the old TAT
                    // (docs/stores.md#counters-across-a-change-of-settings).
                    continue;
                }
                return TokenBuckets.single(bucket, cost, allowed, (capacityMicros - owed) / interval,
                        ceilMillis(owed), fillMillis);
            }
        }

        /** The cost's tokens back: the time until full lowered by cost × the bucket's interval, never below now. */
        @Override
        boolean refund(Bucket bucket, long cost, long[] endsIn, long nowMillis) {
            long interval = bucket == shape ? this.interval : bucket.tokenIntervalMicros(0);
            long now = nowMillis * MICROS_PER_MILLI;
            while (true) {
                long current = (long) TAT.getVolatile(this);
                if (current == RETIRED) {
                    return false;
                }
                if (current <= now || TAT.compareAndSet(this, current, Math.max(now, current - cost * interval))) {
                    return true;
                }
            }
        }

        /** As many whole tokens short of full as the store's verdict said, in the decided bucket's tokens. */
        @Override
        boolean carry(Bucket bucket, Verdict verdict, long nowMillis) {
            long interval = bucket == shape ? this.interval : bucket.tokenIntervalMicros(0);
            long capacity = bucket == shape ? this.capacity : bucket.capacity(0);
            long owed = Math.min(Math.max(0, capacity - verdict.remaining()) * interval, capacity * interval);
            while (true) {
                long current = (long) TAT.getVolatile(this);
                if (current == RETIRED) {
                    return false;
                }
                if (TAT.compareAndSet(this, current, nowMillis * MICROS_PER_MILLI + owed)) {
                    return true;
                }
            }
        }

        @Override
        boolean retire() {
            while (true) {
                long current = (long) TAT.getVolatile(this);
                if (current == RETIRED) {
                    return false;
                }
                if (TAT.compareAndSet(this, current, RETIRED)) {
                    return true;
                }
            }
        }

        @Override
        boolean retireIfEnded(long now) {
            long current = (long) TAT.getVolatile(this);
            return current != RETIRED && now * MICROS_PER_MILLI >= current && TAT.compareAndSet(this, current, RETIRED);
        }
    }

    /**
     * One key's token buckets, one per window of its bucket, as the generic cell rate algorithm keeps them: each
     * window's theoretical arrival time (TAT, epoch microseconds), the instant at which it would be full again. A
     * call of cost c moves it c token intervals on from max(TAT, now), and is allowed iff every window's TAT then
     * stays within its capacity's time (capacity × interval) from now. Read and written under this object's lock.
     * Under another bucket of its name (a plan's limits), each window's interval and capacity are the call's bucket's
     * and its TAT carries, read as at most empty, as a {@link TokenCell}'s.
     */
    private static final class Tokens extends LockedState {
        private final Bucket shape; // the bucket it was made for, whose numbers are those below
        private final long[] intervalMicros;
        private final long[] capacities;
        private final long[] tat;

        Tokens(Bucket bucket) {
            shape = bucket;
            int size = bucket.limits().size();
            intervalMicros = new long[size];
            capacities = new long[size];
            tat = new long[size];
            for (int i = 0; i < size; i++) {
                intervalMicros[i] = bucket.tokenIntervalMicros(i);
                capacities[i] = bucket.capacity(i);
                tat[i] = Long.MIN_VALUE; // full
            }
        }

        /**
         * Any token bucket of as many windows: each window's TAT carries under another capacity, rate or window in
         * its place (a plan, or settings changed), read as at most a full refill, as PostgreSQL's rows carry
         * (docs/stores.md#counters-across-a-change-of-settings).
         */
        @Override
        boolean matches(Bucket bucket) {
            return bucket == shape || bucket.isTokenBucket() && bucket.limits().size() == tat.length;
        }

        private long interval(Bucket bucket, int i) {
            return bucket == shape ? intervalMicros[i] : bucket.tokenIntervalMicros(i);
        }

        private long capacity(Bucket bucket, int i) {
            return bucket == shape ? capacities[i] : bucket.capacity(i);
        }

        /** Every window has the tokens, or nothing changes. */
        @Override
        Verdict decideLocked(Bucket bucket, long cost, long nowMillis) {
            long now = nowMillis * MICROS_PER_MILLI;
            int size = tat.length;
            long needed = Verdicts.needed(cost);
            boolean allowed = true;
            for (int i = 0; i < size; i++) {
                long interval = interval(bucket, i);
                long capacity = capacity(bucket, i);
                long owed = Math.min(Math.max(tat[i], now) - now, capacity * interval); // at most empty
                allowed &= needed <= capacity && owed + needed * interval <= capacity * interval;
            }
            long[] remaining = new long[size];
            long[] fullMillis = new long[size];
            for (int i = 0; i < size; i++) {
                long interval = interval(bucket, i);
                long capacityMicros = capacity(bucket, i) * interval;
                long owed = Math.min(Math.max(tat[i], now) - now, capacityMicros);
                if (allowed && cost > 0) {
                    owed += cost * interval;
                    tat[i] = now + owed;
                } else if (tat[i] > now + owed) {
                    tat[i] = now + owed; // the clamp kept (docs/stores.md#counters-across-a-change-of-settings)
                }
                remaining[i] = (capacityMicros - owed) / interval;
                fullMillis[i] = ceilMillis(owed);
            }
            return TokenBuckets.of(bucket, cost, allowed, remaining, fullMillis);
        }

        @Override
        void refundLocked(Bucket bucket, long cost, long[] endsIn, long nowMillis) {
            long now = nowMillis * MICROS_PER_MILLI;
            for (int i = 0; i < tat.length; i++) {
                if (tat[i] > now) {
                    tat[i] = Math.max(now, tat[i] - cost * interval(bucket, i));
                }
            }
        }

        /** Each window as many whole tokens short of full as the store's verdict said, in the decided bucket's. */
        @Override
        void carryLocked(Bucket bucket, Verdict verdict, long nowMillis) {
            for (int i = 0; i < tat.length; i++) {
                long interval = interval(bucket, i);
                long capacity = capacity(bucket, i);
                long missing = Math.max(0, capacity - verdict.windows().get(i).remaining());
                tat[i] = nowMillis * MICROS_PER_MILLI + Math.min(missing * interval, capacity * interval);
            }
        }

        @Override
        boolean ended(long now) {
            for (long end : tat) {
                if (now * MICROS_PER_MILLI < end) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * One key's sliding window counters of a bucket of several windows (docs/guide.md#sliding-windows; one window is
     * a {@link SlidingCell}): each window's current count, previous count and current end (epoch milliseconds).
     * Windows follow one another from the first counted call, so a window that ended is followed by the one it ended
     * into; a key idle for two window lengths counts nothing. Read and written under this object's lock.
     */
    private static final class Sliding extends LockedState {
        private final long[] windowMillis;
        private final long[] current;
        private final long[] previous;
        private final long[] endsAt;

        Sliding(Bucket bucket) {
            int size = bucket.limits().size();
            windowMillis = new long[size];
            current = new long[size];
            previous = new long[size];
            endsAt = new long[size];
            for (int i = 0; i < size; i++) {
                windowMillis[i] = bucket.limits().get(i).window().toMillis();
                endsAt[i] = NO_WINDOW;
            }
        }

        @Override
        boolean matches(Bucket bucket) {
            if (!bucket.isSlidingWindow() || bucket.limits().size() != windowMillis.length) {
                return false;
            }
            for (int i = 0; i < windowMillis.length; i++) {
                if (bucket.limits().get(i).window().toMillis() != windowMillis[i]) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Moves window {@code i} on to the window open at {@code now}: the current count becomes the previous. With
         * nothing left to weigh, a window opens now, as at a key's first call (it counts nothing until a call is
         * counted, and is then this call's window, as a store's first write opens it).
         */
        private void roll(int i, long now) {
            if (now < endsAt[i]) {
                return;
            }
            long w = windowMillis[i];
            if (now < endsAt[i] + w && current[i] > 0) {
                previous[i] = current[i];
                endsAt[i] += w;
            } else {
                previous[i] = 0;
                endsAt[i] = now + w;
            }
            current[i] = 0;
        }

        /**
         * Milliseconds until window {@code i} ends, at most its length: a call whose clock read came before another
         * call's roll sees the window that roll opened.
         */
        private long end(int i, long now) {
            return Math.min(endsAt[i] - now, windowMillis[i]);
        }

        /** Every window has room for the cost, or nothing changes. */
        @Override
        Verdict decideLocked(Bucket bucket, long cost, long now) {
            int size = windowMillis.length;
            long needed = Verdicts.needed(cost);
            boolean allowed = true;
            for (int i = 0; i < size; i++) {
                roll(i, now);
                allowed &= SlidingWindow.fits(bucket.limits().get(i).limit(), windowMillis[i], current[i], previous[i],
                        end(i, now), needed);
            }
            if (allowed && cost > 0) {
                for (int i = 0; i < size; i++) {
                    current[i] += cost;
                }
            }
            long[] end = new long[size];
            for (int i = 0; i < size; i++) {
                end[i] = end(i, now);
            }
            Verdict verdict = SlidingWindows.of(bucket, cost, allowed, current, previous, end);
            for (int i = 0; i < size; i++) {
                if (current[i] == 0 && previous[i] == 0) {
                    endsAt[i] = NO_WINDOW; // a call that counted nothing opens no window
                }
            }
            return verdict;
        }

        /** The current window's count, where it is the one the refund names; a previous count is never touched. */
        @Override
        void refundLocked(Bucket bucket, long cost, long[] endsIn, long now) {
            for (int i = 0; i < current.length; i++) {
                if (StoreRefund.sameWindow(endsIn[i], endsAt[i] - now, windowMillis[i])) {
                    current[i] = Math.max(0, current[i] - cost);
                }
            }
        }

        /** Each window as {@link Span#carried} takes the store's window (every window's time until all slid out). */
        @Override
        void carryLocked(Bucket bucket, Verdict verdict, long now) {
            for (int i = 0; i < windowMillis.length; i++) {
                Verdict.Window window = verdict.windows().get(i);
                Span carried = Span.carried(window.limit().limit(), windowMillis[i], window.remaining(),
                        window.resetAfter().toMillis(), now, null);
                current[i] = carried.countOrSealed();
                previous[i] = carried.previous;
                endsAt[i] = carried.endsAt;
            }
        }

        @Override
        boolean ended(long now) {
            for (int i = 0; i < endsAt.length; i++) {
                if (now < endsAt[i] + windowMillis[i]) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Sliding windows of other lengths: each window of a length this state had keeps its counts and end; a window
         * of a new length starts with nothing to weigh, as Valkey's keys, named by length, do
         * (docs/stores.md#counters-across-a-change-of-settings).
         */
        @Override
        State reshapedLocked(Bucket bucket) {
            if (!bucket.isSlidingWindow() || !bucket.hasSeveralWindows()) {
                return null;
            }
            Sliding next = new Sliding(bucket);
            for (int i = 0; i < next.windowMillis.length; i++) {
                for (int j = 0; j < windowMillis.length; j++) {
                    if (windowMillis[j] == next.windowMillis[i]) {
                        next.current[i] = current[j];
                        next.previous[i] = previous[j];
                        next.endsAt[i] = endsAt[j];
                    }
                }
            }
            return next;
        }
    }

    /**
     * One key's sliding window of a one-window bucket, without a lock: its current span (the window now open, with
     * the previous window's count) is replaced by compare-and-set when the window rolls on, and its count grows in
     * place by compare-and-set only when the call fits, as a fixed window's {@link Cell} does. Before a span is
     * replaced by the next one, its count is sealed, so that no call is counted in it after its count became the
     * next span's previous count.
     */
    private static final class SlidingCell extends State {
        private static final VarHandle SPAN;

        static {
            try {
                SPAN = MethodHandles.lookup().findVarHandle(SlidingCell.class, "span", Span.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final Bucket shape;
        private final long windowMillis;
        @SuppressWarnings("unused") // read and replaced through SPAN
        private volatile Span span = Span.NONE;
        // The longest window length this key was decided under, so the sweep keeps it while anything weighs.
        private volatile long longestMillis;

        SlidingCell(Bucket bucket) {
            shape = bucket;
            windowMillis = bucket.window().toMillis();
            longestMillis = windowMillis;
        }

        /**
         * Any sliding window of one window: its counts carry under another limit or window length of its name (a
         * plan, or settings changed; docs/stores.md#counters-across-a-change-of-settings).
         */
        @Override
        boolean matches(Bucket bucket) {
            return bucket == shape || bucket.isSlidingWindow() && !bucket.hasSeveralWindows();
        }

        private boolean replace(Span expected, Span next) {
            return SPAN.compareAndSet(this, expected, next);
        }

        /** The window length of {@code bucket}, noted when it is longer than any this key was decided under. */
        private long windowOf(Bucket bucket) {
            if (bucket == shape) {
                return windowMillis;
            }
            long millis = bucket.window().toMillis();
            if (millis > longestMillis) {
                synchronized (this) { // only when the settings changed: a lock rather than one more VarHandle
                    longestMillis = Math.max(longestMillis, millis);
                }
            }
            return millis;
        }

        /**
         * Decided under the call's bucket's limit and window: a plan (docs/plans.md) changes the limit; changed
         * settings may change the window, whose current span then ends within the new length, its counts kept
         * (docs/stores.md#counters-across-a-change-of-settings).
         */
        @Override
        Verdict decide(Bucket bucket, long cost, long now) {
            long limit = bucket.limit();
            long windowMillis = windowOf(bucket);
            long needed = Verdicts.needed(cost);
            while (true) {
                Span current = span;
                if (current == Span.RETIRED) {
                    return null;
                }
                if (current.endsAt - now > windowMillis) {
                    // Opened under a longer window: sealed and replaced by a span ending within this length, with
                    // its counts. (A call whose clock read came a few milliseconds before another's opened the span
                    // ends it those milliseconds sooner: never later than said.)
                    long count = current.seal();
                    replace(current, new Span(now + windowMillis, current.previous, count));
                    continue;
                }
                if (now >= current.endsAt) {
                    // Sealed right before it is replaced, so a thread that finds it sealed soon finds its successor.
                    if (now < current.endsAt + windowMillis && current.countOrSealed() > 0) {
                        replace(current, new Span(current.endsAt + windowMillis, current.seal(), 0));
                        continue; // the window the previous one ended into, whose weight its count now has
                    }
                    // Nothing left to weigh: a counted call opens a window now, with a phase of its own.
                    if (cost == 0 || needed > limit) {
                        return SlidingWindows.single(bucket, cost, cost == 0 && needed <= limit, 0, 0,
                                windowMillis);
                    }
                    if (current != Span.NONE) {
                        current.seal(); // the shared NONE counts nothing and is never added to
                    }
                    if (replace(current, new Span(now + windowMillis, 0, cost))) {
                        return SlidingWindows.single(bucket, cost, true, cost, 0, windowMillis);
                    }
                    continue;
                }
                long count = current.count();
                if (count < 0) {
                    Thread.onSpinWait(); // sealed by a thread rolling it on, whose next span comes at once
                    continue;
                }
                // At most a window: a thread whose clock read came before another's roll sees the next window.
                long end = Math.min(current.endsAt - now, windowMillis);
                if (!SlidingWindow.fits(limit, windowMillis, count, current.previous, end, needed)) {
                    return SlidingWindows.single(bucket, cost, false, count, current.previous, end);
                }
                if (cost == 0 || current.add(count, cost)) {
                    return SlidingWindows.single(bucket, cost, true, count + cost, current.previous, end,
                            current);
                }
            }
        }

        /**
         * Lowers the open span's count, where it is the window the refund names, never below 0. A span being
         * rolled on (sealed) is waited for: its successor ends a window later, so it is left alone.
         */
        @Override
        boolean refund(Bucket bucket, long cost, long[] endsIn, long now) {
            long windowMillis = windowOf(bucket);
            while (true) {
                Span current = span;
                if (current == Span.RETIRED) {
                    return false;
                }
                if (!StoreRefund.sameWindow(endsIn[0], current.endsAt - now, windowMillis)) {
                    return true;
                }
                long count = current.count();
                if (count < 0) {
                    Thread.onSpinWait();
                    continue;
                }
                if (count == 0 || current.add(count, -Math.min(cost, count))) {
                    return true;
                }
            }
        }

        /**
         * The store's window as {@link Span#carried} takes it; a refusal's {@code resetAfter} is when the refused call
         * fits, not when all has slid out, so one window length more is taken for it.
         */
        @Override
        boolean carry(Bucket bucket, Verdict verdict, long now) {
            long windowMillis = windowOf(bucket);
            long outMillis = verdict.resetAfter().toMillis()
                    + (verdict.outcome() == Verdict.Outcome.DENIED ? windowMillis : 0);
            while (true) {
                Span current = span;
                if (current == Span.RETIRED) {
                    return false;
                }
                Span next = Span.carried(bucket.limit(), windowMillis, verdict.remaining(), outMillis, now, current);
                if (next == current || replace(current, next)) {
                    return true;
                }
            }
        }

        @Override
        boolean retire() {
            while (true) {
                Span current = span;
                if (current == Span.RETIRED) {
                    return false;
                }
                if (replace(current, Span.RETIRED)) {
                    return true;
                }
            }
        }

        @Override
        boolean retireIfEnded(long now) {
            Span current = span;
            return current != Span.RETIRED && now >= current.endsAt + longestMillis && replace(current, Span.RETIRED);
        }
    }

    /**
     * The window a {@link SlidingCell} has open: when it ends (epoch milliseconds), the previous window's count, and
     * its own count, which grows by compare-and-set and is sealed (made negative, for good) before the next span
     * takes it as its previous count.
     */
    private static final class Span implements java.util.function.LongFunction<Duration> {
        static final Span NONE = new Span(NO_WINDOW, 0, 0);
        static final Span RETIRED = new Span(NO_WINDOW, 0, 0);
        private static final long SEALED = Long.MIN_VALUE;
        private static final VarHandle COUNT;

        static {
            try {
                COUNT = MethodHandles.lookup().findVarHandle(Span.class, "count", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final long endsAt;
        final long previous;
        @SuppressWarnings("unused") // read and updated through COUNT
        private volatile long count;
        // The last resetAfter handed out, as Window keeps it: every allowed call of one millisecond reports the same.
        private Duration resetAfter;

        Span(long endsAt, long previous, long count) {
            this.endsAt = endsAt;
            this.previous = previous;
            this.count = count;
        }

        /** The count, negative once sealed. */
        long count() {
            return (long) COUNT.getVolatile(this);
        }

        /** Adds {@code cost} if the count is still {@code expected} (and not sealed). */
        boolean add(long expected, long cost) {
            return COUNT.compareAndSet(this, expected, expected + cost);
        }

        /** An allowed call's resetAfter of {@code millis}: the one handed out last when it is the same. */
        @Override
        public Duration apply(long millis) {
            Duration cached = resetAfter;
            if (cached == null || cached.toMillis() != millis) {
                cached = Duration.ofMillis(millis);
                resetAfter = cached;
            }
            return cached;
        }

        /**
         * A window that holds what a shared store's verdict said was counted ({@code limit - remaining}), so that it
         * slides out when the store's does, {@code outMillis} from {@code now} (at most two window lengths): beyond
         * one window length, as the current window's count, its end {@code outMillis} less a window away; within one,
         * as the previous window's count weighted by that time; nothing counted, no window ({@link #NONE}). When
         * {@code held} is that same window (an end within {@link #SAME_WINDOW_MILLIS}, the same previous count, not
         * sealed), its count is set in place and {@code held} returned: no allocation for a key decided again and
         * again in one window.
         *
         * @param held the span a {@link SlidingCell} holds, or {@code null}
         * @return {@code held}, {@link #NONE} or a new span
         */
        static Span carried(long limit, long windowMillis, long remaining, long outMillis, long now, Span held) {
            long counted = Math.max(0, limit - remaining);
            long out = Math.min(outMillis, 2 * windowMillis);
            if (counted == 0 || out <= 0) {
                return NONE;
            }
            boolean current = out > windowMillis;
            long endsAt = current ? now + out - windowMillis : now + out;
            long previous = current ? 0 : Math.min(limit, (long) Math.ceil((double) counted * windowMillis / out));
            long count = current ? counted : 0;
            if (held != null && held != NONE && held != RETIRED && held.previous == previous
                    && Math.abs(held.endsAt - endsAt) < SAME_WINDOW_MILLIS) {
                long was = held.count();
                if (was >= 0 && COUNT.compareAndSet(held, was, count)) {
                    return held;
                }
            }
            return new Span(endsAt, previous, count);
        }

        /** The count, sealed or not. */
        long countOrSealed() {
            long current = count();
            return current < 0 ? current - SEALED : current;
        }

        /** Seals the count, so nothing more is added to it; the count it was sealed at. */
        long seal() {
            while (true) {
                long current = count();
                if (current < 0) {
                    return current - SEALED;
                }
                if (COUNT.compareAndSet(this, current, current + SEALED)) {
                    return current;
                }
            }
        }
    }
}
