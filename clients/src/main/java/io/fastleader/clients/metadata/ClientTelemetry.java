package io.fastleader.clients.metadata;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.MetricsReporter;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.GetTelemetrySubscriptionsRequest;
import org.apache.kafka.common.requests.GetTelemetrySubscriptionsResponse;
import org.apache.kafka.common.requests.PushTelemetryRequest;
import org.apache.kafka.common.requests.PushTelemetryResponse;
import org.apache.kafka.common.telemetry.internals.ClientTelemetryProvider;
import org.apache.kafka.common.telemetry.internals.ClientTelemetryReporter;
import org.apache.kafka.common.telemetry.internals.ClientTelemetrySender;
import org.apache.kafka.common.telemetry.internals.ClientTelemetryUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.network.ConnectionPool;
import io.fastleader.clients.network.Failures;
import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.message.GetTelemetrySubscriptionsRequestData;
import io.fastleader.protocol.message.GetTelemetrySubscriptionsResponseData;
import io.fastleader.protocol.message.PushTelemetryRequestData;
import io.fastleader.protocol.message.PushTelemetryResponseData;

/**
 * Client telemetry (KIP-714, {@code enable.metrics.push}), pushed as kafka-clients pushes it.
 *
 * <p>What a push holds is kafka-clients' own work: the {@link ClientTelemetryReporter} of the
 * application's release hears of every metric as one of the client's metrics reporters, keeps the
 * subscription's state, and encodes each push (OTLP, compressed as the broker accepts). This class
 * plays {@code NetworkClient}'s part: on the metadata thread it asks the reporter when a request is
 * due, sends it to one broker, kept for as long as it answers, and hands back the answer, or the
 * failure as {@code NetworkClient} reports it. A broker without a telemetry plugin does not offer
 * the APIs; the reporter then waits before asking again, as it decides.
 *
 * <p>A client with {@code enable.metrics.push=false} holds a disabled one: no reporter, nothing
 * pushed, and no client instance id.
 */
public final class ClientTelemetry implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClientTelemetry.class);
    private static final String NOT_ENABLED = "Telemetry is not enabled. Set config `"
            + CommonClientConfigs.ENABLE_METRICS_PUSH_CONFIG + "` to `true`.";
    private static final int NO_NODE = Integer.MIN_VALUE;
    /** {@code ClientTelemetryReporter.initiateClose}: {@code ()} from kafka-clients 4.0, {@code (long)} before. */
    private static final MethodHandle INITIATE_CLOSE = initiateCloseHandle();
    /** {@code PushTelemetryRequestData.metrics}: a {@link ByteBuffer} from kafka-clients 4.0, an array before. */
    private static final MethodHandle PUSHED_METRICS = pushedMetricsHandle();

    /** Null when telemetry is disabled. */
    private final ClientTelemetryReporter reporter;
    /** Completes once the terminating push is answered or failed, or once no terminating push is due. */
    private final CompletableFuture<Void> closed = new CompletableFuture<>();
    private volatile boolean closing;
    private volatile boolean stopped;

    // Set by start, before the metadata thread first looks at them; from node down, that thread's alone.
    private ConnectionPool pool;
    private ClusterMetadata metadata;
    private long requestTimeoutMs;
    private long retryMs;
    /** The broker pushed to, kept while it answers, as kafka-clients keeps it. */
    private int node = NO_NODE;
    private ScheduledFuture<?> wakeup;
    /** A request sent and its answer or failure not yet handed back to the reporter. */
    private boolean requestInFlight;
    /** The reporter was told the client is closing: its next push is the terminating one. */
    private boolean closeInitiated;
    private boolean terminatingPushInFlight;

    private ClientTelemetry(ClientTelemetryReporter reporter) {
        this.reporter = reporter;
    }

    /**
     * The telemetry of a client named {@code clientId} configured with {@code kafka}: kafka-clients'
     * reporter, configured as kafka-clients configures it, if {@code enable.metrics.push} is true.
     */
    public static ClientTelemetry of(String clientId, AbstractConfig kafka) {
        return new ClientTelemetry(CommonClientConfigs.telemetryReporter(clientId, kafka).orElse(null));
    }

    /** The reporter to add to the client's metrics reporters; empty when telemetry is disabled. */
    public Optional<MetricsReporter> reporter() {
        return Optional.ofNullable(reporter);
    }

    /**
     * Starts pushing through {@code pool} to the brokers {@code metadata} knows, on its thread.
     *
     * @param requestTimeout {@code request.timeout.ms}, which the reporter waits for an answer
     * @param retry          how long to wait for a broker to push to when none is ready
     */
    void start(ConnectionPool pool, ClusterMetadata metadata, Duration requestTimeout, Duration retry) {
        if (reporter == null) {
            return;
        }
        this.pool = Objects.requireNonNull(pool, "pool");
        this.metadata = Objects.requireNonNull(metadata, "metadata");
        this.requestTimeoutMs = requestTimeout.toMillis();
        this.retryMs = Math.max(1, retry.toMillis());
        metadata.executor().execute(this::pushIfDue);
    }

    /**
     * The id the brokers gave this client for its telemetry, waiting up to {@code timeout} for the
     * first subscription to bring it; null if none came in time, as in kafka-clients.
     *
     * @throws IllegalStateException with kafka-clients' message when telemetry is disabled
     * @throws IllegalArgumentException for a negative timeout
     */
    public Uuid clientInstanceId(Duration timeout) {
        if (reporter == null) {
            throw new IllegalStateException(NOT_ENABLED);
        }
        return ClientTelemetryUtils.fetchClientInstanceId(reporter, timeout);
    }

    /** Labels what is pushed with the consumer's group member id from now on, as kafka-clients does once a group gives one. */
    public void memberIdChanged(String memberId) {
        if (reporter != null) {
            reporter.updateMetricsLabels(Map.of(ClientTelemetryProvider.GROUP_MEMBER_ID, memberId));
        }
    }

    /**
     * Adds an application's metric to what is pushed, unless it is one of the client's own
     * ({@code registerMetricForSubscription}, KIP-1076), as kafka-clients does.
     */
    public void addApplicationMetric(KafkaMetric metric, Metrics clientMetrics) {
        applicationMetric(metric, clientMetrics, "registration", MetricsReporter::metricChange);
    }

    /** Takes an application's metric out of what is pushed ({@code unregisterMetricFromSubscription}), as kafka-clients does. */
    public void removeApplicationMetric(KafkaMetric metric, Metrics clientMetrics) {
        applicationMetric(metric, clientMetrics, "unregistration", MetricsReporter::metricRemoval);
    }

    private void applicationMetric(KafkaMetric metric, Metrics clientMetrics, String change,
                                   BiConsumer<MetricsReporter, KafkaMetric> apply) {
        if (clientMetrics.metrics().containsKey(metric.metricName())) {
            LOG.debug("Skipping {} for metric {}. Existing client metrics cannot be changed.", change, metric.metricName());
        } else if (reporter != null) {
            apply.accept(reporter, metric);
        }
    }

    /**
     * Sends the terminating push kafka-clients sends as a client closes, if a subscription asks for
     * pushes, and waits up to {@code timeout} for its answer. Call before the pool closes.
     */
    public void closeWithin(Duration timeout) {
        if (reporter == null || metadata == null || closing) {
            return;
        }
        closing = true;
        try {
            metadata.executor().execute(this::initiateCloseUnlessRequestInFlight);
            closed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException metadataClosed) {
            // Nothing can be sent any more.
        } catch (TimeoutException e) {
            LOG.debug("The terminating telemetry push was not answered within {} ms", timeout.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /** Stops pushing. The reporter itself is closed with the client's metrics, as one of their reporters. */
    @Override
    public void close() {
        stopped = true;
        closed.complete(null);
    }

    /**
     * Tells the reporter the client is closing and sends the terminating push, unless a request is
     * in flight: then once its answer is handed back ({@link #answered}). The reporter of kafka-clients
     * 3.x, told while a push is in flight, takes that push's answer as a move it refuses, and then
     * disables itself without making the terminating push. Runs on the metadata thread.
     */
    private void initiateCloseUnlessRequestInFlight() {
        if (!requestInFlight && !closeInitiated) {
            closeInitiated = true;
            initiateClose(reporter);
            pushIfDue();
        }
    }

    /** After a request's answer or failure was handed back to the reporter: the close waiting for it, or the next request. */
    private void answered() {
        requestInFlight = false;
        if (closing && !closeInitiated) {
            initiateCloseUnlessRequestInFlight();
        } else {
            pushIfDue();
        }
    }

    /** Sends the request the reporter has due, or sets a wakeup for when one will be. Runs on the metadata thread. */
    private void pushIfDue() {
        if (stopped) {
            return;
        }
        ClientTelemetrySender sender = reporter.telemetrySender();
        long waitMs = sender.timeToNextUpdate(requestTimeoutMs);
        if (waitMs > 0) {
            if (closeInitiated && !terminatingPushInFlight) {
                closed.complete(null);
            } else {
                wakeAfter(waitMs);
            }
            return;
        }
        int target = readyNode();
        if (target == NO_NODE) {
            if (closeInitiated) {
                // No broker to take the last metrics: the close does not wait for one.
                closed.complete(null);
            } else {
                wakeAfter(retryMs);
            }
            return;
        }
        Optional<AbstractRequest.Builder<?>> next = sender.createRequest();
        if (next.isEmpty()) {
            // The reporter moved on meanwhile (a failed encoding waits an interval): ask it again later.
            wakeAfter(requestTimeoutMs);
            return;
        }
        AbstractRequest.Builder<?> builder = next.get();
        send(target, builder.build(builder.latestAllowedVersion()), sender);
    }

    private void send(int target, AbstractRequest request, ClientTelemetrySender sender) {
        if (request instanceof GetTelemetrySubscriptionsRequest subscriptions) {
            if (closeInitiated) {
                // A subscription is of no use to a client closing: nothing more is sent.
                closed.complete(null);
                return;
            }
            sendAndHandBack(target, ApiKey.GET_TELEMETRY_SUBSCRIPTIONS,
                    new GetTelemetrySubscriptionsRequestData().setClientInstanceId(subscriptions.data().clientInstanceId()),
                    answer -> sender.handleResponse(new GetTelemetrySubscriptionsResponse(kafkaData((GetTelemetrySubscriptionsResponseData) answer))),
                    sender::handleFailedGetTelemetrySubscriptionsRequest, false);
        } else if (request instanceof PushTelemetryRequest push) {
            org.apache.kafka.common.message.PushTelemetryRequestData data = push.data();
            PushTelemetryRequestData wire = new PushTelemetryRequestData()
                    .setClientInstanceId(data.clientInstanceId())
                    .setSubscriptionId(data.subscriptionId())
                    .setTerminating(data.terminating())
                    .setCompressionType(data.compressionType())
                    .setMetrics(pushedMetrics(data));
            terminatingPushInFlight = data.terminating();
            sendAndHandBack(target, ApiKey.PUSH_TELEMETRY, wire,
                    answer -> sender.handleResponse(new PushTelemetryResponse(kafkaData((PushTelemetryResponseData) answer))),
                    sender::handleFailedPushTelemetryRequest, data.terminating());
        } else {
            throw new IllegalStateException("Client telemetry made a request it never makes: " + request.getClass().getName());
        }
    }

    /**
     * Sends {@code wire} to {@code target} and, on the metadata thread, hands its answer to
     * {@code answered} or its failure to {@code failedWith} ({@link #failed}); the close waits for
     * a {@code terminating} push's answer. Then the close waiting for the answer goes on, or the
     * next request due goes ({@link #answered()}).
     */
    private void sendAndHandBack(int target, ApiKey api, ApiMessage wire, Consumer<ApiMessage> answered,
                                 Consumer<KafkaException> failedWith, boolean terminating) {
        requestInFlight = true;
        pool.send(target, api, wire).whenCompleteAsync((answer, error) -> {
            if (stopped) {
                return;
            }
            if (error == null) {
                answered.accept(answer);
            } else {
                failed(error, failedWith);
            }
            if (terminating) {
                terminatingPushInFlight = false;
                closed.complete(null);
            }
            answered();
        }, metadata.executor());
    }

    /**
     * Hands a failed request back as {@code NetworkClient} does: a broker that speaks no version of
     * the API is named, a request lost with its connection or timed out is not. The next request
     * goes to a broker chosen afresh.
     */
    private void failed(Throwable error, Consumer<KafkaException> handler) {
        node = NO_NODE;
        Throwable cause = Failures.cause(error);
        LOG.debug("Client telemetry request failed", cause);
        handler.accept(cause instanceof UnsupportedVersionException unsupported ? unsupported : null);
    }

    /**
     * The broker to push to: the one pushed to before while it is still among the brokers and
     * ready, else the first ready one. Null ({@link #NO_NODE}) if none is ready; the first is then
     * connected to, so that one is when the wakeup comes.
     */
    private int readyNode() {
        List<Integer> brokers = metadata.brokers();
        if (node != NO_NODE && brokers.contains(node) && pool.isReady(node)) {
            return node;
        }
        node = NO_NODE;
        for (int broker : brokers) {
            if (pool.isReady(broker)) {
                node = broker;
                return broker;
            }
        }
        pool.connect(brokers.get(0));
        return NO_NODE;
    }

    private void wakeAfter(long delayMs) {
        if (wakeup != null) {
            wakeup.cancel(false);
            wakeup = null;
        }
        // The reporter answers Integer.MAX_VALUE or more when nothing is to be sent again (disabled, or terminating).
        if (delayMs < Integer.MAX_VALUE) {
            try {
                wakeup = metadata.after(delayMs, this::pushIfDue);
            } catch (RejectedExecutionException metadataClosed) {
                // The client is closing: nothing is pushed any more.
            }
        }
    }

    private static org.apache.kafka.common.message.PushTelemetryResponseData kafkaData(PushTelemetryResponseData answer) {
        return new org.apache.kafka.common.message.PushTelemetryResponseData()
                .setThrottleTimeMs(answer.throttleTimeMs())
                .setErrorCode(answer.errorCode());
    }

    private static org.apache.kafka.common.message.GetTelemetrySubscriptionsResponseData kafkaData(
            GetTelemetrySubscriptionsResponseData answer) {
        return new org.apache.kafka.common.message.GetTelemetrySubscriptionsResponseData()
                .setThrottleTimeMs(answer.throttleTimeMs())
                .setErrorCode(answer.errorCode())
                .setClientInstanceId(answer.clientInstanceId())
                .setSubscriptionId(answer.subscriptionId())
                .setAcceptedCompressionTypes(answer.acceptedCompressionTypes())
                .setPushIntervalMs(answer.pushIntervalMs())
                .setTelemetryMaxBytes(answer.telemetryMaxBytes())
                .setDeltaTemporality(answer.deltaTemporality())
                .setRequestedMetrics(answer.requestedMetrics());
    }

    /** The encoded metrics of a push: kafka-clients 4.0 and later hold them in a {@link ByteBuffer}, 3.x in an array. */
    private static ByteBuffer pushedMetrics(org.apache.kafka.common.message.PushTelemetryRequestData push) {
        try {
            return (ByteBuffer) PUSHED_METRICS.invoke(push);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private static MethodHandle pushedMetricsHandle() {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        Class<?> push = org.apache.kafka.common.message.PushTelemetryRequestData.class;
        try {
            return lookup.findVirtual(push, "metrics", MethodType.methodType(ByteBuffer.class));
        } catch (NoSuchMethodException | IllegalAccessException absent) {
            try {
                MethodHandle wrap = lookup.findStatic(ByteBuffer.class, "wrap", MethodType.methodType(ByteBuffer.class, byte[].class));
                return MethodHandles.filterReturnValue(lookup.findVirtual(push, "metrics", MethodType.methodType(byte[].class)), wrap);
            } catch (NoSuchMethodException | IllegalAccessException e) {
                throw new IllegalStateException("kafka-clients' PushTelemetryRequestData has no metrics", e);
            }
        }
    }

    /** Marks the reporter closing, so that its next request is the terminating push; never waits. */
    private static void initiateClose(ClientTelemetryReporter reporter) {
        try {
            INITIATE_CLOSE.invoke(reporter);
        } catch (Throwable e) {
            LOG.warn("Could not start closing the client telemetry reporter", e);
        }
    }

    private static MethodHandle initiateCloseHandle() {
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        try {
            return lookup.findVirtual(ClientTelemetryReporter.class, "initiateClose", MethodType.methodType(void.class));
        } catch (NoSuchMethodException | IllegalAccessException absent) {
            try {
                // kafka-clients 3.x waits up to the given time for the terminating push to be made; 0 returns at once.
                MethodHandle timed = lookup.findVirtual(ClientTelemetryReporter.class, "initiateClose",
                        MethodType.methodType(void.class, long.class));
                return MethodHandles.insertArguments(timed, 1, 0L);
            } catch (NoSuchMethodException | IllegalAccessException e) {
                throw new IllegalStateException("kafka-clients' ClientTelemetryReporter has no initiateClose", e);
            }
        }
    }
}
