package dev.ratelimiter.internal.valkey;

import dev.ratelimiter.spi.StoreException;
import dev.ratelimiter.spi.StoreItem;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisNoScriptException;
import redis.clients.jedis.exceptions.JedisRedirectionException;

import java.util.List;
import java.util.function.Supplier;

/**
 * Decisions that wait for a connection in one round trip ({@link ValkeyStore#consumeEach},
 * docs/stores.md#batching): one pipeline of {@code decide.lua} calls, one per call, on one connection.
 */
final class DecisionPipeline {

    private final Supplier<ValkeyClient> clients;
    private final ScriptArgumentEncoder arguments;
    private final SlotGrouper slots;

    /**
     * @param clients   the client, built if need be (may throw)
     * @param arguments the script's parameters as bytes
     * @param slots     a call's and a key's cluster slot
     */
    DecisionPipeline(Supplier<ValkeyClient> clients, ScriptArgumentEncoder arguments, SlotGrouper slots) {
        this.clients = clients;
        this.arguments = arguments;
        this.slots = slots;
    }

    /**
     * The calls as one pipeline of script calls, one per call, on one connection (docs/stores.md#batching): the
     * pool's, or in a cluster the connection to the master of the first call's slot. Each script call decides its
     * call as {@link ValkeyStore#consume} does. The calls answered NOSCRIPT (not run) go once more, in one pipeline
     * by EVAL. A call the server did not run otherwise (a cluster's MOVED or ASK, or in a cluster a call whose keys
     * lie in several slots) answers {@code null}, for the library to send alone. Any other error reply, or a failure
     * of the connection, fails the whole round trip and is never replayed.
     *
     * @return each call's answer, as {@link ValkeyStore#consume}'s, or {@code null}
     * @throws StoreException classified by {@link ValkeyFailures}
     */
    long[][] consumeEach(List<List<StoreItem>> calls) throws StoreException {
        ValkeyClient client = null;
        try {
            client = clients.get();
            boolean cluster = client.isCluster();
            HostAndPort node = cluster ? client.clusterNodeOf(slots.slot(calls.get(0).get(0))) : null;
            long[][] answers = new long[calls.size()][];
            if (cluster && node == null) {
                return answers; // the slot map is being re-read: each goes alone
            }
            boolean[] send = new boolean[calls.size()];
            for (int i = 0; i < send.length; i++) {
                send[i] = !cluster || slots.oneSlot(calls.get(i));
            }
            // EVALSHA first; the calls the server answered NOSCRIPT (after a restart or SCRIPT FLUSH: not run) go
            // once more in one pipeline by EVAL, which also caches the script.
            boolean[] noScript = pipeline(client, node, calls, send, false, answers);
            if (noScript != null) {
                pipeline(client, node, calls, noScript, true, answers);
            }
            return answers;
        } catch (RuntimeException e) {
            throw ValkeyFailures.failed(client, e);
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
                    parameters = arguments.parameters(call, 0, call.size(), keys);
                    keyCount = keys[0];
                }
                replies[i] = eval ? pipeline.eval(ValkeyScript.DECIDE.bytes(), keyCount, parameters)
                        : pipeline.evalsha(ValkeyScript.DECIDE.shaBytes(), keyCount, parameters);
            }
            pipeline.sync();
        }
        boolean[] noScript = null;
        for (int i = 0; i < replies.length; i++) {
            if (replies[i] == null) {
                continue;
            }
            try {
                answers[i] = ValkeyStore.answer(replies[i].get());
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
}
