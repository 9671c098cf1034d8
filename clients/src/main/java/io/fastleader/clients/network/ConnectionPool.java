package io.fastleader.clients.network;

import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

import io.fastleader.protocol.ApiKey;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link BrokerConnection}s to brokers by node id, opened on first use: per broker, one for Fetch
 * requests, one for JoinGroup and SyncGroup, and one for every other request ({@link ConnectionLane}).
 * A broker reads one request per connection at a time, so a Fetch long-polling for
 * {@code fetch.max.wait.ms}, or a JoinGroup the group coordinator holds until every member has
 * rejoined (up to the rebalance timeout, {@code max.poll.interval.ms}), would hold back every request
 * behind it; on a connection of its own it holds back only the next request of its kind, and a
 * Heartbeat or LeaveGroup goes out while a JoinGroup is held. JoinGroup and SyncGroup time out after
 * the longer rebalance request timeout ({@link ConnectionConfig#requestTimeoutFor}), the others after
 * {@code request.timeout.ms}. A pool that never sends a Fetch nor joins a group, a producer's, keeps
 * one connection per broker.
 *
 * <p>The owner tells the pool where each node is with {@link #updateNodes}; a new address is used
 * from the next connect to that node on, and a connection already open is kept until it closes or
 * idles out. {@link #send} and {@link #connect} never block: a connection is set up on the pool's
 * loop, each step (TCP, TLS, ApiVersions, SASL) started when the one before is answered, so no
 * thread waits for a broker and a slow broker delays only its own requests; requests sent meanwhile
 * wait in order and go out once the connection is ready.
 *
 * <p>Each of a node's connections is kept on its own, as Kafka keeps its one connection per
 * node. After a failed connect, the connection is backed off like in Kafka:
 * {@code reconnect.backoff.ms}, doubling with each further failure up to
 * {@code reconnect.backoff.max.ms}, each wait spread by ±20% so that clients do not reconnect in
 * lockstep, and reset by a successful connect. Its setup timeout grows the same way, from
 * {@code socket.connection.setup.timeout.ms} up to {@code socket.connection.setup.timeout.max.ms},
 * so that a broker slow to accept is given longer each time. A node's host name is resolved at each
 * connect to every address it has, and each failed connect moves to the next of them, so a broker
 * behind a name whose first address is dead is reached at another, as in kafka-clients
 * ({@link HostResolver}). Requests for a connection backing off fail at once
 * instead of queueing behind a broker that is likely down. A connection that broke is replaced at
 * the next request for it, without backoff. Each has its own bound of requests in flight
 * ({@code max.in.flight.requests.per.connection}).
 *
 * <p>Connections unused for {@code connections.max.idle.ms} are closed by the pool's own sweep, a
 * timer on the pool's {@link IoLoop} that fires when the connection used least recently could
 * have idled out (never while no connection is open), so idle connections close even if nobody
 * calls the pool; every call to the pool closes them too. A connection with a request not yet
 * answered is in use however long ago it was last sent on, since a JoinGroup may be held for
 * longer than {@code connections.max.idle.ms} ({@code max.poll.interval.ms}): a sweep that finds one
 * counts it used then. So the rebalance connection idles out between rebalances, never during one.
 * Every transport failure reaches the caller as a {@link BrokerConnectionException}. Thread-safe.
 */
public final class ConnectionPool implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionPool.class);

    private static final AtomicInteger POOL_IDS = new AtomicInteger();

    private final ConnectionConfig config;
    private final PoolConfig poolConfig;
    private final LongSupplier nanoClock;
    private final Connector connector;
    private final HostResolver resolver;
    private final DoubleSupplier random;
    /** Every connection's I/O; null where a test's connector brings its own connections. */
    private final IoLoop loop;
    /** The TLS engines of every connection, one SSL context for all; null for plaintext or a test's connector. */
    private final ChannelSecurity security;
    private final Scheduler sweepScheduler;
    private final Object lock = new Object();
    private final Map<Integer, InetSocketAddress> addresses = new HashMap<>();
    private final Map<NodeLane, LaneState> lanes = new HashMap<>();
    /** The cluster every connect to a broker names for the broker to check (KIP-1242); null while none is to be named. */
    private volatile String clusterToCheck;
    /**
     * Whether each node's broker, as its last connection found it, speaks the ApiVersions that names
     * a cluster (Kafka 4.4 and later); guarded by {@code lock}. A broker that does not cannot check
     * one, and a proxy in front of it may not even parse the request, so only a broker known to
     * speak it is asked to check: a node not yet connected to, if any broker of the pool speaks it.
     */
    private final Map<Integer, Boolean> nodesThatCanCheck = new HashMap<>();
    private boolean anyBrokerCanCheck;
    private final List<Consumer<MisroutedConnectionException>> misroutedListeners = new CopyOnWriteArrayList<>();
    /**
     * The lanes this pool has sent on that are connected ahead of need: {@link ConnectionLane#OTHER} from the
     * start, {@link ConnectionLane#FETCH} once it sent a Fetch (it serves a consumer); never
     * {@link ConnectionLane#REBALANCE}, opened only when a JoinGroup or SyncGroup is sent.
     * {@link #connect} opens these, {@link #isReady} asks of these.
     */
    private final Set<ConnectionLane> lanesInUse = EnumSet.of(ConnectionLane.OTHER);
    /** A sweep is scheduled; kept true whenever a connection is open (see {@link #scheduleSweepLocked}). */
    private boolean sweepPending;
    private boolean closed;

    /**
     * Runs the pool's idle sweep after a delay. A seam so that tests can run the sweep when they
     * choose, on a clock they move; in production a timer on the pool's loop.
     */
    @FunctionalInterface
    public interface Scheduler {

        /** Runs {@code task} once, {@code delayNanos} from now, on a thread that is not the caller's. */
        void schedule(Runnable task, long delayNanos);
    }

    /** A pool that opens connections with {@link BrokerConnection#open} on its loop, timed by {@link System#nanoTime}. */
    public ConnectionPool(ConnectionConfig config, PoolConfig poolConfig) {
        this(config, poolConfig, nodeId -> ConnectionListener.NONE);
    }

    /**
     * A pool as {@link #ConnectionPool(ConnectionConfig, PoolConfig)}, telling each connection's
     * listener, from {@code listeners} by node id as the connection opens, what it does on the wire.
     */
    public ConnectionPool(ConnectionConfig config, PoolConfig poolConfig, IntFunction<ConnectionListener> listeners) {
        this(config, poolConfig, listeners, TimedIoHandler.SelectTimes.NONE);
    }

    /**
     * A client's pool: its connections, and its loop's selects, are measured in {@code network}
     * under kafka-clients' network metric names.
     */
    public ConnectionPool(ConnectionConfig config, PoolConfig poolConfig, NetworkMetrics network) {
        this(config, poolConfig, network::connectionTo, network::selected);
    }

    /** Security first, so that a TLS or SASL configuration kafka-clients refuses fails the pool before its loop starts. */
    private ConnectionPool(ConnectionConfig config, PoolConfig poolConfig, IntFunction<ConnectionListener> listeners,
                           TimedIoHandler.SelectTimes selects) {
        this(config, poolConfig, listeners, ChannelSecurity.of(config.security()),
            IoLoop.start("fastleader-io-" + POOL_IDS.incrementAndGet() + "-", selects));
    }

    /** The idle sweep runs on the loop too: it only closes connections, which never waits there. */
    private ConnectionPool(ConnectionConfig config, PoolConfig poolConfig, IntFunction<ConnectionListener> listeners,
                           ChannelSecurity security, IoLoop loop) {
        this(config, poolConfig, System::nanoTime, (nodeId, address, connectionConfig) -> BrokerConnection.open(address,
            connectionConfig, listeners.apply(nodeId), loop, security), () -> ThreadLocalRandom.current().nextDouble(),
            (task, delayNanos) -> loop.schedule(task, delayNanos), HostResolver.SYSTEM, loop, security);
    }

    /**
     * A pool with its seams exposed, for tests.
     *
     * @param nanoClock      a monotonic clock in nanoseconds, for backoff and idleness
     * @param connector      starts opening a connection, without blocking; called on the thread of the request that needs it
     * @param random         uniform in [0, 1), spreads each backoff over ±20%
     * @param sweepScheduler runs the idle sweep; it must not run the task on the calling thread
     */
    public ConnectionPool(ConnectionConfig config, PoolConfig poolConfig, LongSupplier nanoClock, Connector connector,
                          DoubleSupplier random, Scheduler sweepScheduler) {
        this(config, poolConfig, nanoClock, connector, random, sweepScheduler, HostResolver.NONE);
    }

    /**
     * A pool with its seams exposed as {@link #ConnectionPool(ConnectionConfig, PoolConfig, LongSupplier, Connector,
     * DoubleSupplier, Scheduler)}, whose connector is given each address {@code resolver} finds for a node, in turn.
     */
    public ConnectionPool(ConnectionConfig config, PoolConfig poolConfig, LongSupplier nanoClock, Connector connector,
                          DoubleSupplier random, Scheduler sweepScheduler, HostResolver resolver) {
        this(config, poolConfig, nanoClock, connector, random, sweepScheduler, resolver, null, null);
    }

    /**
     * @param resolver resolves a node's host name, on the loop if the pool has one
     * @param loop     the I/O loop the connector opens connections on, which the pool closes with them; null if it has none
     */
    private ConnectionPool(ConnectionConfig config, PoolConfig poolConfig, LongSupplier nanoClock, Connector connector,
                           DoubleSupplier random, Scheduler sweepScheduler, HostResolver resolver, IoLoop loop,
                           ChannelSecurity security) {
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.loop = loop;
        this.security = security;
        this.sweepScheduler = Objects.requireNonNull(sweepScheduler, "sweepScheduler");
        this.config = Objects.requireNonNull(config, "config");
        this.poolConfig = Objects.requireNonNull(poolConfig, "poolConfig");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.connector = Objects.requireNonNull(connector, "connector");
        this.random = Objects.requireNonNull(random, "random");
    }

    /**
     * The I/O loop every connection of the pool lives on, where their answers arrive: an owner of
     * state that runs there needs no handoff to take them. Null for a pool whose connector brings
     * connections of its own (tests).
     */
    public IoLoop loop() {
        return loop;
    }

    /**
     * Replaces the known nodes, as a metadata response lists them. Connections already open stay
     * open; the new addresses are used for the next connects.
     */
    public void updateNodes(Map<Integer, InetSocketAddress> nodeAddresses) {
        Map<Integer, InetSocketAddress> copy = Map.copyOf(nodeAddresses);
        synchronized (lock) {
            addresses.clear();
            addresses.putAll(copy);
        }
    }

    /**
     * From the next connect on, each connect to a broker (a node id of 0 or more, not a bootstrap
     * server) names {@code clusterId} and the node in its ApiVersions, so that a broker that is not
     * that node of that cluster refuses it (KIP-1242): {@link #onMisroutedConnection} hears of each.
     */
    public void checkClusterOnConnect(String clusterId) {
        clusterToCheck = Objects.requireNonNull(clusterId, "clusterId");
    }

    /**
     * Tells {@code listener} of every connect a broker refused as misrouted, on the thread that saw
     * the refusal; it must be quick. The connect fails as any failed connect does.
     */
    public void onMisroutedConnection(Consumer<MisroutedConnectionException> listener) {
        misroutedListeners.add(listener);
    }

    /**
     * Sends a request to node {@code nodeId} over the node's connection for {@code api}'s lane (a
     * Fetch over the node's Fetch connection, a JoinGroup or SyncGroup over its rebalance connection,
     * anything else over the other), connecting first if that connection is not open.
     *
     * @return the response body; fails with {@link BrokerConnectionException} if the node has no
     *         address, the connection is backing off, cannot be opened or fails, or the pool closes
     *         first, and as {@link BrokerConnection#send} otherwise
     */
    public CompletableFuture<ApiMessage> send(int nodeId, ApiKey api, ApiMessage body) {
        return onConnection(nodeId, ConnectionLane.of(api), connection -> connection.send(api, body));
    }

    /**
     * Sends a request the broker does not answer, a Produce with {@code acks=0}, to node
     * {@code nodeId} as {@link #send(int, ApiKey, ApiMessage)} sends one it answers
     * ({@link BrokerConnection#sendWithoutResponse}).
     *
     * @return completes once the request is written, with the connection that carried it: a broker
     *         refuses such a request by closing that connection ({@link BrokerConnection#whenClosed});
     *         fails as {@link #send(int, ApiKey, ApiMessage)} does if it cannot be written
     */
    public CompletableFuture<BrokerConnection> sendWithoutResponse(int nodeId, ApiKey api, ApiMessage body) {
        return onConnection(nodeId, ConnectionLane.of(api),
                connection -> connection.sendWithoutResponse(api, body).thenApply(written -> connection));
    }

    /**
     * Sends a request built for the version negotiated with node {@code nodeId}.
     *
     * @return as {@link #send(int, ApiKey, ApiMessage)}
     */
    public CompletableFuture<ApiMessage> send(int nodeId, ApiKey api, VersionedRequest body) {
        return send(nodeId, api, api.highestVersion(), body);
    }

    /**
     * Sends a request built for the version negotiated with node {@code nodeId}, or for
     * {@code highestVersion} if that is lower: for an API whose newer versions mean more than the
     * cluster has enabled. Under {@code transaction.version} 1 a transactional producer sends
     * Produce at v11 at most, since v12 adds the partitions to the transaction, and EndTxn and
     * TxnOffsetCommit at v4 at most.
     *
     * @return as {@link #send(int, ApiKey, ApiMessage)}; fails, unsent, with
     *         {@link org.apache.kafka.common.errors.UnsupportedVersionException} also if
     *         {@code highestVersion} is below the lowest version both the node and we speak
     */
    public CompletableFuture<ApiMessage> send(int nodeId, ApiKey api, short highestVersion, VersionedRequest body) {
        return onConnection(nodeId, ConnectionLane.of(api), connection -> connection.send(api, highestVersion, body));
    }

    /**
     * The versions negotiated with node {@code nodeId} on its connection for requests other than
     * Fetch, JoinGroup and SyncGroup, connecting first if that connection is not open; and with
     * them the feature levels the cluster had finalized when the connection was set up, such as
     * the {@code transaction.version} that decides which versions a transactional producer sends.
     *
     * @return fails as {@link #send(int, ApiKey, ApiMessage)} does when the connection cannot be had
     */
    public CompletableFuture<NegotiatedVersions> versions(int nodeId) {
        return connection(nodeId, ConnectionLane.OTHER).thenApply(BrokerConnection::versions);
    }

    /**
     * Whether node {@code nodeId}'s open connection for requests other than Fetch, JoinGroup and
     * SyncGroup has requests not yet answered. A broker reads one request per connection at a time,
     * so such a request sent now, Metadata for one, waits behind them. Fetches, which may be held for
     * {@code fetch.max.wait.ms}, and JoinGroup and SyncGroup, which may be held for the rebalance
     * timeout, have their own connections and never make a node busy.
     */
    public boolean isBusy(int nodeId) {
        BrokerConnection open;
        synchronized (lock) {
            LaneState lane = lanes.get(new NodeLane(nodeId, ConnectionLane.OTHER));
            open = lane == null || lane.attempt == null ? null : lane.attempt.connection;
        }
        return open != null && open.pendingRequests() > 0;
    }

    /**
     * Whether every connection to node {@code nodeId} this pool uses is open, set up, and handed
     * to every request that waited for it, so that a request to the node would be written at once:
     * the connection for requests other than Fetch, and once the pool has sent a Fetch, the Fetch
     * connection too. Otherwise a request sent now may first wait for a connect, its setup (TLS,
     * ApiVersions, SASL) or the requests ahead of it. The rebalance connection does not count: the
     * first JoinGroup or SyncGroup to the node opens it.
     */
    public boolean isReady(int nodeId) {
        synchronized (lock) {
            for (ConnectionLane lane : lanesInUse) {
                LaneState state = lanes.get(new NodeLane(nodeId, lane));
                // A connection's isOpen reads a volatile and takes no lock, so asking it here cannot deadlock.
                if (state == null || state.attempt == null || !state.attempt.published || !state.attempt.connection.isOpen()) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Opens the connections to node {@code nodeId} that this pool uses ahead of need, those not
     * open or opening: the one for requests other than Fetch, and once the pool has sent a Fetch,
     * the Fetch connection too. A producer's pool so opens one connection, a consumer's two, and
     * a leader move then waits for the handshake of neither. Never the rebalance connection: only
     * the group coordinator's broker gets JoinGroup and SyncGroup, opening it when they do.
     *
     * @return completes once those connections are ready; fails as {@link #send} does if one fails
     */
    public CompletableFuture<Void> connect(int nodeId) {
        return connectLanesInUse(nodeId, false);
    }

    /**
     * Opens the connections to node {@code nodeId} as {@link #connect} does, even those backing
     * off after failed connects: for a caller with news that the broker is up again, such as its
     * election as a partition's leader. Their counts of failed connects stay, so a broker still
     * down backs off longer after this attempt fails too.
     *
     * @return as {@link #connect}
     */
    public CompletableFuture<Void> connectNow(int nodeId) {
        return connectLanesInUse(nodeId, true);
    }

    /**
     * Closes every connection and stops connecting; every request not yet answered, and every
     * later call, fails with a {@link BrokerConnectionException}.
     */
    @Override
    public void close() {
        List<CompletableFuture<BrokerConnection>> waiting = new ArrayList<>();
        List<CompletableFuture<BrokerConnection>> opening = new ArrayList<>();
        List<BrokerConnection> open = new ArrayList<>();
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            for (LaneState lane : lanes.values()) {
                if (lane.attempt != null) {
                    waiting.addAll(lane.attempt.waiting);
                    if (lane.attempt.connection != null) {
                        open.add(lane.attempt.connection);
                    } else if (lane.attempt.opening != null) {
                        opening.add(lane.attempt.opening);
                    }
                }
            }
            lanes.clear();
        }
        BrokerConnectionException failure = poolClosed();
        waiting.forEach(waiter -> waiter.completeExceptionally(failure));
        open.forEach(BrokerConnection::close);
        // Gives up the setups under way, which closes their connections; one that ends meanwhile finds the pool closed.
        opening.forEach(connect -> connect.completeExceptionally(failure));
        if (loop != null) {
            loop.close();
        }
        if (security != null) {
            security.close();
        }
    }

    /** The scheduled sweep: closes what has idled out, then schedules the next sweep if a connection is left. */
    private void sweep() {
        List<BrokerConnection> idle;
        synchronized (lock) {
            sweepPending = false;
            if (closed) {
                return;
            }
            long now = nanoClock.getAsLong();
            idle = takeIdleLocked(now);
            scheduleSweepLocked(now);
        }
        idle.forEach(BrokerConnection::close);
    }

    /**
     * Schedules a sweep for when the least recently used open connection could idle out, unless one
     * is pending. A pending sweep is never late: it was scheduled for the earliest such moment, and
     * that moment only moves later, as connections are used or opened.
     */
    private void scheduleSweepLocked(long now) {
        if (sweepPending) {
            return;
        }
        long leastRecentlyUsed = Long.MAX_VALUE;
        boolean anyOpen = false;
        for (LaneState lane : lanes.values()) {
            if (lane.attempt != null && lane.attempt.connection != null) {
                leastRecentlyUsed = anyOpen ? Math.min(leastRecentlyUsed, lane.lastUsedNanos) : lane.lastUsedNanos;
                anyOpen = true;
            }
        }
        if (anyOpen) {
            sweepPending = true;
            sweepScheduler.schedule(this::sweep, Math.max(0, leastRecentlyUsed + poolConfig.connectionsMaxIdle().toNanos() - now));
        }
    }

    /**
     * Runs {@code request} on node {@code nodeId}'s connection for {@code lane} once it is had, as
     * {@code thenCompose} would. An open connection is had at once, so the request runs at once, on
     * the calling thread, without a stage between: the path every request takes in steady state.
     */
    private <T> CompletableFuture<T> onConnection(int nodeId, ConnectionLane lane,
                                                  Function<BrokerConnection, CompletableFuture<T>> request) {
        CompletableFuture<BrokerConnection> connection = connection(nodeId, lane);
        if (connection.isDone() && !connection.isCompletedExceptionally()) {
            try {
                return request.apply(connection.join());
            } catch (RuntimeException e) {
                // What thenCompose would have returned.
                return CompletableFuture.failedFuture(new CompletionException(e));
            }
        }
        return connection.thenCompose(request);
    }

    /**
     * The node's open connection on {@code lane}, or a future of the one being opened. Callers
     * compose on it; a waiter's dependents run when it completes, so waiters completed in order
     * send in order.
     */
    private CompletableFuture<BrokerConnection> connection(int nodeId, ConnectionLane lane) {
        CompletableFuture<BrokerConnection> result;
        List<BrokerConnection> idle;
        List<Runnable> connects = new ArrayList<>(0);
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(poolClosed());
            }
            if (lane.connectedAheadOfNeed()) {
                lanesInUse.add(lane);
            }
            long now = nanoClock.getAsLong();
            idle = takeIdleLocked(now);
            result = connectionLocked(new NodeLane(nodeId, lane), now, false, connects);
        }
        idle.forEach(BrokerConnection::close);
        connects.forEach(Runnable::run);
        return result;
    }

    /**
     * Connects the node on every lane in use, unless open or opening.
     *
     * @param despiteBackoff connect even lanes backing off after failed connects
     */
    private CompletableFuture<Void> connectLanesInUse(int nodeId, boolean despiteBackoff) {
        List<CompletableFuture<BrokerConnection>> connections = new ArrayList<>();
        List<BrokerConnection> idle;
        List<Runnable> connects = new ArrayList<>(0);
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(poolClosed());
            }
            long now = nanoClock.getAsLong();
            idle = takeIdleLocked(now);
            for (ConnectionLane lane : lanesInUse) {
                connections.add(connectionLocked(new NodeLane(nodeId, lane), now, despiteBackoff, connects));
            }
        }
        idle.forEach(BrokerConnection::close);
        connects.forEach(Runnable::run);
        return CompletableFuture.allOf(connections.toArray(CompletableFuture[]::new));
    }

    /**
     * The lane's connection, or a future of it; a connect this needs goes into {@code connects}, for
     * the caller to start once it has let go of the lock, so that no connector and no waiter's
     * dependent ever runs under it.
     */
    private CompletableFuture<BrokerConnection> connectionLocked(NodeLane id, long now, boolean despiteBackoff,
                                                                 List<Runnable> connects) {
        LaneState lane = lanes.computeIfAbsent(id, ignored -> new LaneState());
        lane.lastUsedNanos = now;
        Attempt current = lane.attempt;
        // A connection completes its requests outside its own lock, so asking it here cannot deadlock.
        if (current != null && (current.connection == null || current.connection.isOpen())) {
            return current.published ? CompletableFuture.completedFuture(current.connection) : current.await();
        }
        if (!despiteBackoff && lane.failedConnects > 0 && now - lane.retryAtNanos < 0) {
            return CompletableFuture.failedFuture(new BrokerConnectionException(id + " is backing off "
                + lane.backoffMs + " ms after a failed connect, "
                + TimeUnit.NANOSECONDS.toMillis(lane.retryAtNanos - now) + " ms left", lane.lastFailure));
        }
        InetSocketAddress address = addresses.get(id.nodeId());
        if (address == null) {
            return CompletableFuture.failedFuture(new BrokerConnectionException("no address is known for node " + id.nodeId(), null));
        }
        Attempt attempt = new Attempt();
        lane.attempt = attempt;
        CompletableFuture<BrokerConnection> waiter = attempt.await();
        Duration setupTimeout = Duration.ofMillis(
            poolConfig.connectTimeoutPolicy(config.connectTimeout()).millis(lane.failedConnects + 1, random.getAsDouble()));
        int failedConnects = lane.failedConnects;
        connects.add(() -> resolveAndConnect(id, lane, attempt, address, failedConnects, setupTimeout));
        return waiter;
    }

    /**
     * Resolves the node's host name, on the loop where there is one (the JDK's lookup may block), and
     * connects to the address its {@code failedConnects} in a row have come to: the next address after
     * each failure, the first again after a success, as kafka-clients goes through a broker's addresses.
     */
    private void resolveAndConnect(NodeLane id, LaneState lane, Attempt attempt, InetSocketAddress broker, int failedConnects,
                                   Duration setupTimeout) {
        Runnable resolveAndStart = () -> {
            List<InetSocketAddress> resolved;
            try {
                resolved = resolver.resolve(broker);
            } catch (UnknownHostException | RuntimeException e) {
                failConnect(id, lane, attempt, new BrokerConnectionException("cannot resolve " + broker.getHostString() + " for " + id
                    + ": " + e, e));
                return;
            }
            startConnect(id, lane, attempt, resolved.get(failedConnects % resolved.size()), setupTimeout);
        };
        if (loop == null) {
            resolveAndStart.run();
        } else if (!loop.execute(resolveAndStart)) {
            failConnect(id, lane, attempt, poolClosed());
        }
    }

    /**
     * Starts opening the connection, set up within {@code setupTimeout}; once it is ready,
     * {@link #opened} hands it to the waiters.
     */
    private void startConnect(NodeLane id, LaneState lane, Attempt attempt, InetSocketAddress address, Duration setupTimeout) {
        CompletableFuture<BrokerConnection> opening;
        try {
            opening = connector.open(id.nodeId(), address, connectConfig(id.nodeId(), setupTimeout));
        } catch (RuntimeException e) {
            failConnect(id, lane, attempt, e);
            return;
        }
        boolean orphaned;
        synchronized (lock) {
            orphaned = closed;
            attempt.opening = opening;
        }
        if (orphaned) {
            opening.completeExceptionally(poolClosed());
        }
        opening.whenComplete((connection, failure) -> {
            if (failure != null) {
                AuthenticationException refused = Failures.authenticationFailure(failure);
                if (refused != null) {
                    LOG.error("Connection to node {} ({}) failed authentication due to: {}", id.nodeId(), address, refused.getMessage());
                }
                Throwable cause = Failures.cause(failure);
                if (cause instanceof MisroutedConnectionException misrouted) {
                    misroutedListeners.forEach(listener -> listener.accept(misrouted));
                }
                failConnect(id, lane, attempt, cause);
            } else {
                opened(id, lane, attempt, connection);
            }
        });
    }

    /** The settings of one connect to {@code nodeId}: its setup timeout, and the cluster check if one is to be made. */
    private ConnectionConfig connectConfig(int nodeId, Duration setupTimeout) {
        String clusterId = clusterToCheck;
        boolean canCheck;
        synchronized (lock) {
            canCheck = nodesThatCanCheck.getOrDefault(nodeId, anyBrokerCanCheck);
        }
        ConnectionConfig connect = config.withConnectTimeout(setupTimeout);
        return clusterId == null || nodeId < 0 || !canCheck ? connect : connect.withClusterCheck(new ClusterCheck(clusterId, nodeId));
    }

    /** The connection is ready: hands it to the waiters in order, then to every later request. */
    private void opened(NodeLane id, LaneState lane, Attempt attempt, BrokerConnection connection) {
        boolean orphaned;
        synchronized (lock) {
            orphaned = closed;
            if (!orphaned) {
                boolean canCheck = connection.versions().version(ApiKey.API_VERSIONS) > BrokerConnection.LAST_VERSION_WITHOUT_CLUSTER_CHECK;
                nodesThatCanCheck.put(id.nodeId(), canCheck);
                anyBrokerCanCheck |= canCheck;
                attempt.connection = connection;
                lane.failedConnects = 0;
                lane.lastUsedNanos = nanoClock.getAsLong();
                scheduleSweepLocked(lane.lastUsedNanos);
            }
        }
        if (orphaned) {
            connection.close();
            return;
        }
        // The connection is published only once no waiter is left, so a later request cannot overtake a waiting one.
        while (true) {
            List<CompletableFuture<BrokerConnection>> waiting;
            synchronized (lock) {
                if (attempt.waiting.isEmpty()) {
                    attempt.published = true;
                    return;
                }
                waiting = new ArrayList<>(attempt.waiting);
                attempt.waiting.clear();
            }
            waiting.forEach(waiter -> waiter.complete(connection));
        }
    }

    private void failConnect(NodeLane id, LaneState lane, Attempt attempt, Throwable cause) {
        BrokerConnectionException failure = cause instanceof BrokerConnectionException connectionFailure
            ? connectionFailure
            : new BrokerConnectionException("cannot connect to " + id + ": " + cause, cause);
        List<CompletableFuture<BrokerConnection>> waiting;
        synchronized (lock) {
            if (closed) {
                return;
            }
            lane.attempt = null;
            lane.failedConnects++;
            lane.backoffMs = backoffMs(lane.failedConnects);
            lane.retryAtNanos = nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(lane.backoffMs);
            lane.lastFailure = failure;
            waiting = new ArrayList<>(attempt.waiting);
            attempt.waiting.clear();
        }
        waiting.forEach(waiter -> waiter.completeExceptionally(failure));
    }

    private long backoffMs(int failedConnects) {
        return poolConfig.reconnectBackoffPolicy().millis(failedConnects, random.getAsDouble());
    }

    /**
     * Takes the connections unused for {@code connections.max.idle.ms}, to be closed. One with requests
     * not yet answered, such as a JoinGroup held for longer, is in use: it counts as used now.
     */
    private List<BrokerConnection> takeIdleLocked(long now) {
        long maxIdleNanos = poolConfig.connectionsMaxIdle().toNanos();
        List<BrokerConnection> idle = new ArrayList<>();
        for (LaneState lane : lanes.values()) {
            // An opened connection still being handed to its waiters counts too: it was last used when it opened.
            if (lane.attempt != null && lane.attempt.connection != null && now - lane.lastUsedNanos >= maxIdleNanos) {
                // A connection completes its requests outside its own lock, so asking it here cannot deadlock.
                if (lane.attempt.connection.pendingRequests() > 0) {
                    lane.lastUsedNanos = now;
                } else {
                    idle.add(lane.attempt.connection);
                    lane.attempt = null;
                }
            }
        }
        return idle;
    }

    private static BrokerConnectionException poolClosed() {
        return new BrokerConnectionException("the connection pool is closed", null);
    }

    /**
     * One of a node's connections, as failures name it: {@code node 1}, {@code node 1 (fetch connection)},
     * {@code node 1 (rebalance connection)}.
     */
    private record NodeLane(int nodeId, ConnectionLane lane) {

        @Override
        public String toString() {
            return switch (lane) {
                case FETCH -> "node " + nodeId + " (fetch connection)";
                case REBALANCE -> "node " + nodeId + " (rebalance connection)";
                case OTHER -> "node " + nodeId;
            };
        }
    }

    /** What the pool knows of one of a node's connections; guarded by {@code lock}. */
    private static final class LaneState {
        /** The connection being opened or in use; null before the first, after a failed connect or an idle close. */
        Attempt attempt;
        long lastUsedNanos;
        /** Failed connects in a row: they grow the backoff and the setup timeout, and pick which of the node's addresses comes next. */
        int failedConnects;
        long backoffMs;
        long retryAtNanos;
        BrokerConnectionException lastFailure;
    }

    /**
     * One connect and the connection it opened; guarded by {@code lock}. A connection that breaks is
     * replaced by a new attempt, so requests still waiting on the old one cannot get the new one.
     */
    private static final class Attempt {
        /** Null while connecting. */
        BrokerConnection connection;
        /** The connector's future of the connection, null until the connect has started. */
        CompletableFuture<BrokerConnection> opening;
        final ArrayDeque<CompletableFuture<BrokerConnection>> waiting = new ArrayDeque<>();
        /** Every waiter has been handed the connection; later requests use it directly. */
        boolean published;

        CompletableFuture<BrokerConnection> await() {
            CompletableFuture<BrokerConnection> waiter = new CompletableFuture<>();
            waiting.add(waiter);
            return waiter;
        }
    }
}
