package io.fastleader.benchmarks.steady;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

import io.fastleader.benchmarks.leadermove.Variant;
import io.fastleader.it.cluster.Disturbances;
import io.fastleader.it.cluster.KafkaTestCluster;

/**
 * Every turn of a run, one after another: for each round, each client in turn sends to a fresh
 * topic of its own from a fresh client JVM ({@link ClientJvm}), and the topic is deleted after
 * its turn, which keeps the brokers' disks small; or, in a consume cell, reads its record size's
 * backlog ({@link Backlogs}), which is deleted after the last round that reads it. Turns that
 * fail are reported and left out; the run goes on.
 *
 * @param cluster      the brokers
 * @param disturbances creates the topics
 * @param options      the cells, durations and client JVM options
 */
record SteadyRun(KafkaTestCluster cluster, Disturbances disturbances, SteadyOptions options) {

    static final List<Variant> CLIENTS = List.of(Variant.FASTLEADER, Variant.KAFKA_CLIENTS_4_3_1);
    static final int PARTITIONS = 6;
    static final short REPLICATION_FACTOR = 3;
    /** A client JVM's start, the topic's creation and deletion, beyond warm-up and window; from the smoke runs. */
    private static final int TURN_OVERHEAD_SECONDS = 5;

    /**
     * Every client once on one cell.
     *
     * @param number     counts the rounds of the run from 0, the warm-up round
     * @param cell       what every client of the round sends with
     * @param repetition of this cell, from 1; 0 for the warm-up round, which is not kept
     */
    record Round(int number, Cell cell, int repetition) {

        /** The clients in turn order: fastleader first in odd rounds, kafka-clients first in even ones. */
        List<Variant> order() {
            List<Variant> order = new ArrayList<>(CLIENTS);
            if (number % 2 == 0) {
                Collections.reverse(order);
            }
            return order;
        }

        /** Whether its turns are kept; the warm-up round's are not. */
        boolean kept() {
            return repetition > 0;
        }
    }

    /**
     * The rounds of a run: a warm-up round on the first cell (the brokers' JIT and page cache
     * warm up in it; every client JVM warms up in its own turn), then {@code repetitions} rounds
     * of each cell in turn. Numbered through the whole run, so the order alternates across cells
     * too, and every cell sees both orders when {@code repetitions} is even.
     */
    static List<Round> rounds(List<Cell> cells, int repetitions) {
        List<Round> rounds = new ArrayList<>();
        rounds.add(new Round(0, cells.get(0), 0));
        for (Cell cell : cells) {
            for (int repetition = 1; repetition <= repetitions; repetition++) {
                rounds.add(new Round(rounds.size(), cell, repetition));
            }
        }
        return List.copyOf(rounds);
    }

    /** Whether {@code round} is the last of {@code rounds} that reads its record size's backlog: the run is done with it then. */
    static boolean lastBacklogRead(List<Round> rounds, Round round) {
        return round.cell().mode() == Cell.Mode.CONSUME && rounds.stream().skip(round.number() + 1L)
            .noneMatch(later -> later.cell().mode() == Cell.Mode.CONSUME && later.cell().recordBytes() == round.cell().recordBytes());
    }

    /**
     * What the turns gave.
     *
     * @param turns  every kept turn, in the order they ran
     * @param failed every turn that gave no figures
     */
    record Outcome(List<Turn> turns, List<Turn.Failed> failed) {
    }

    /** Runs every round. */
    Outcome run() throws InterruptedException {
        List<Cell> cells = options.cells();
        List<Round> rounds = rounds(cells, options.repetitions());
        int turns = rounds.size() * CLIENTS.size();
        long turnSeconds = options.warmUp().plus(options.window()).toSeconds() + TURN_OVERHEAD_SECONDS;
        System.out.printf("%d cells x %d repetitions after a warm-up round: %d turns of about %d s (%.1f min)%n",
            cells.size(), options.repetitions(), turns, turnSeconds, turns * turnSeconds / 60.0);
        long backlogTopics = cells.stream().filter(cell -> cell.mode() == Cell.Mode.CONSUME).mapToInt(Cell::recordBytes).distinct().count();
        if (backlogTopics > 0) {
            System.out.printf("and %d backlog topic(s) of %d MiB of values to fill%n", backlogTopics, options.consumeBacklogMib());
        }
        List<Turn> kept = new ArrayList<>();
        List<Turn.Failed> failed = new ArrayList<>();
        int done = 0;
        try (Admin admin = Admin.create(cluster.clientConfig());
             Backlogs backlogs = new Backlogs(cluster, disturbances, admin, options.consumeBacklogMib())) {
            for (Round round : rounds) {
                List<Variant> order = round.order();
                for (int place = 0; place < order.size(); place++) {
                    Variant client = order.get(place);
                    String prefix = String.format(Locale.ROOT, "turn %d/%d %-20s %s, %s", ++done, turns, client.label(), round.cell().name(),
                        round.kept() ? "repetition " + round.repetition() + ", " + ordinal(place + 1) : "warm-up round (not kept)");
                    try {
                        Turn turn = turn(admin, backlogs, client, round, place + 1);
                        System.out.println(prefix + ": " + SteadyReport.describe(turn));
                        if (round.kept()) {
                            kept.add(turn);
                        }
                    } catch (InterruptedException e) {
                        throw e;
                    } catch (Exception e) {
                        System.out.println(prefix + ": FAILED, left out: " + e.getMessage());
                        failed.add(new Turn.Failed(round.cell(), client.label(), round.repetition(), e.getMessage()));
                    }
                }
                if (lastBacklogRead(rounds, round)) {
                    backlogs.delete(round.cell().recordBytes());
                }
            }
        }
        return new Outcome(List.copyOf(kept), List.copyOf(failed));
    }

    /** One client's turn: on a fresh topic of its own, deleted after it, or on its record size's backlog. */
    private Turn turn(Admin admin, Backlogs backlogs, Variant client, Round round, int place) throws Exception {
        if (round.cell().mode() == Cell.Mode.CONSUME) {
            String topic = backlogs.topic(round.cell().recordBytes());
            return clientJvmTurn(client, round, place, topic, System.nanoTime());
        }
        String topic = "steady-jvm-" + round.number() + "-" + round.cell().name() + "-" + client.label();
        long started = System.nanoTime();
        disturbances.createTopic(new NewTopic(topic, PARTITIONS, REPLICATION_FACTOR));
        try {
            return clientJvmTurn(client, round, place, topic, started);
        } finally {
            deleteTopic(admin, topic);
        }
    }

    /** Runs {@code client}'s JVM on {@code topic}; the turn's length counts from {@code started}. */
    private Turn clientJvmTurn(Variant client, Round round, int place, String topic, long started) throws Exception {
        Turn.Figures figures;
        try (ClientJvm jvm = ClientJvm.start(client, round.cell(), topic, cluster.bootstrapServers(), options)) {
            figures = jvm.figures(options);
        }
        if (figures.records() == 0) {
            throw new IllegalStateException("no record counted in the window; first error: " + figures.firstError());
        }
        return new Turn(round.cell(), client.label(), round.repetition(), place, (System.nanoTime() - started) / 1e9, figures);
    }

    /** Deletes {@code topic}; a failure is printed, not thrown: the run goes on. */
    static void deleteTopic(Admin admin, String topic) {
        try {
            admin.deleteTopics(List.of(topic)).all().get();
        } catch (ExecutionException e) {
            System.out.println("deleting " + topic + " failed: " + e.getCause());
        } catch (InterruptedException e) {
            // the run is being stopped: the topic goes with the cluster
            Thread.currentThread().interrupt();
        }
    }

    private static String ordinal(int place) {
        return place == 1 ? "1st" : place == 2 ? "2nd" : place + "th";
    }
}
