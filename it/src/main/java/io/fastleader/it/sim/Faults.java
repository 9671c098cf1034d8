package io.fastleader.it.sim;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fastleader.protocol.ApiKey;
import io.fastleader.protocol.ErrorCode;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * The faults commanded on a simulated cluster, per broker and per API, and what they do to each
 * request: {@link RequestDispatcher} asks for a {@link Plan} as it dispatches a request (counted
 * faults are consumed then, in dispatch order, so which request a fault hits is deterministic)
 * and serves the request through it. Handlers know nothing of faults.
 */
final class Faults {

    private record Target(int brokerId, ApiKey api) {
    }

    /** {@code remaining} more requests answered with {@code error}. */
    private static final class Injection {
        final ErrorCode error;
        int remaining;

        Injection(ErrorCode error, int remaining) {
            this.error = error;
            this.remaining = remaining;
        }
    }

    /** Metadata answered from {@code handler}'s frozen state until {@code untilNanos}. */
    private record StaleMetadata(MetadataHandler handler, long untilNanos) {
    }

    private final ClusterState state;
    private final Scheduler scheduler;
    private final ErrorAnswers errorAnswers = new ErrorAnswers();
    private final Map<Target, Deque<Injection>> injections = new HashMap<>();
    private final Map<Target, Integer> drops = new HashMap<>();
    private final Map<Target, Duration> delays = new HashMap<>();
    private final Map<Integer, StaleMetadata> staleMetadata = new HashMap<>();

    Faults(ClusterState state, Scheduler scheduler) {
        this.state = state;
        this.scheduler = scheduler;
    }

    synchronized void injectError(int brokerId, ApiKey api, ErrorCode error, int count) {
        requireCount(count);
        if (!errorAnswers.apis().contains(api)) {
            throw new IllegalArgumentException("errors cannot be injected into " + api.displayName() + ": no error answer is built for it");
        }
        if (error == ErrorCode.NONE) {
            throw new IllegalArgumentException("NONE is not an error");
        }
        injections.computeIfAbsent(new Target(brokerId, api), t -> new ArrayDeque<>()).addLast(new Injection(error, count));
    }

    synchronized void dropAnswers(int brokerId, ApiKey api, int count) {
        requireCount(count);
        drops.merge(new Target(brokerId, api), count, Integer::sum);
    }

    synchronized void delay(int brokerId, ApiKey api, Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("a negative delay " + delay);
        }
        if (delay.isZero()) {
            delays.remove(new Target(brokerId, api));
        } else {
            delays.put(new Target(brokerId, api), delay);
        }
    }

    /** Broker {@code brokerId} answers Metadata from the state as it is now, for {@code howLong} (null: until cleared). */
    synchronized void staleMetadata(int brokerId, Duration howLong) {
        long until = howLong == null ? Long.MAX_VALUE : System.nanoTime() + howLong.toNanos();
        staleMetadata.put(brokerId, new StaleMetadata(new MetadataHandler(state.metadataSnapshot()), until));
    }

    synchronized void freshMetadata(int brokerId) {
        staleMetadata.remove(brokerId);
    }

    /** Ends every fault; answers already held back or dropped stay so. */
    synchronized void clear() {
        injections.clear();
        drops.clear();
        delays.clear();
        staleMetadata.clear();
    }

    /** Decides what the faults do to the request in {@code context}, consuming counted faults. */
    synchronized Plan plan(RequestContext context) {
        Target target = new Target(context.brokerId(), context.api());
        Set<LoggedRequest.Fault> applied = EnumSet.noneOf(LoggedRequest.Fault.class);
        ErrorCode injected = null;
        Deque<Injection> queue = injections.get(target);
        if (queue != null) {
            Injection head = queue.peekFirst();
            injected = head.error;
            if (--head.remaining == 0) {
                queue.removeFirst();
                if (queue.isEmpty()) {
                    injections.remove(target);
                }
            }
            applied.add(LoggedRequest.Fault.ERROR_INJECTED);
        }
        MetadataHandler staleHandler = null;
        if (injected == null && context.api() == ApiKey.METADATA) {
            StaleMetadata stale = staleMetadata.get(context.brokerId());
            if (stale != null && System.nanoTime() - stale.untilNanos() < 0) {
                staleHandler = stale.handler();
                applied.add(LoggedRequest.Fault.STALE_METADATA);
            } else if (stale != null) {
                staleMetadata.remove(context.brokerId());
            }
        }
        boolean drop = false;
        Integer dropsLeft = drops.get(target);
        if (dropsLeft != null) {
            drop = true;
            if (dropsLeft == 1) {
                drops.remove(target);
            } else {
                drops.put(target, dropsLeft - 1);
            }
            applied.add(LoggedRequest.Fault.ANSWER_DROPPED);
        }
        Duration delay = drop ? null : delays.get(target);
        if (delay != null) {
            applied.add(LoggedRequest.Fault.ANSWER_DELAYED);
        }
        return new Plan(context, applied, injected, staleHandler, drop, delay);
    }

    private static void requireCount(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("a fault for " + count + " requests");
        }
    }

    /** What the faults do to one request. */
    final class Plan {
        private final RequestContext context;
        private final Set<LoggedRequest.Fault> applied;
        private final ErrorCode injected;
        private final MetadataHandler staleHandler;
        private final boolean drop;
        private final Duration delay;

        private Plan(RequestContext context, Set<LoggedRequest.Fault> applied, ErrorCode injected,
                     MetadataHandler staleHandler, boolean drop, Duration delay) {
            this.context = context;
            this.applied = applied;
            this.injected = injected;
            this.staleHandler = staleHandler;
            this.drop = drop;
            this.delay = delay;
        }

        Set<LoggedRequest.Fault> applied() {
            return applied;
        }

        /**
         * Serves {@code request} with {@code handler} as the faults say: refused with the injected
         * error without being served, or served (Metadata from a stale snapshot) and its answer
         * dropped (a stage that never completes: the connection stays open and serves nothing
         * more) or held back.
         */
        CompletionStage<ApiMessage> serve(ApiMessage request, RequestHandler handler) {
            CompletionStage<ApiMessage> answer = injected != null
                ? CompletableFuture.completedFuture(errorAnswers.build(context, request, injected))
                : (staleHandler != null ? staleHandler : handler).handle(context, request);
            if (drop) {
                // a request that gets no answer anyway (acks=0) leaves its connection free
                return answer.thenCompose(served -> served == null ? answer : new CompletableFuture<>());
            }
            if (delay != null) {
                return answer.thenCompose(served -> {
                    CompletableFuture<ApiMessage> later = new CompletableFuture<>();
                    scheduler.schedule(() -> later.complete(served), delay.toMillis());
                    return later;
                });
            }
            return answer;
        }
    }
}
