package io.fastleader.benchmarks.leadermove;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.fastleader.benchmarks.common.CommandLine;
import io.fastleader.it.cluster.Execution;

/**
 * The leader-move benchmark's settings.
 *
 * @param scenario   reassign, roll or kip951
 * @param variants   the clients, side by side
 * @param bootstrap  an existing cluster, or null for three brokers started in this JVM
 * @param partitions the shared topic's partition count
 * @param rate       records per second, per variant
 * @param recordSize bytes per record value
 * @param warmup     traffic before the first disturbance, left out of the percentiles
 * @param moves      reassign: how many times every replica list rotates
 * @param interval   reassign and kip951: time from the end of a rotation to the next, or to the end
 * @param settle     roll: time after each broker is back before the next goes down
 * @param json       where the figures go
 * @param chart      where the latency chart goes
 * @param brokerConfigs settings for the brokers this tool starts
 * @param deployment the cluster this tool starts: round trips, metadata lag, security, where the brokers run
 * @param acks       the producers' {@code acks}: all (idempotence on) or 1 (idempotence off)
 * @param fastleaderConfigs settings for the fastleader variants' clients, on top of their own
 * @param countKafkaClientRequests whether the kafka-clients variants' requests are counted, from their DEBUG log
 * @param slowBatchMillis the fastleader variants log the phases of every batch slower than this
 * @param brokerRows the brokers' settings to run the scenario with, each on a fresh cluster, in order
 * @param steady     kip951: measured traffic before the one move
 */
record LeaderMoveOptions(Scenario scenario, List<Variant> variants, String bootstrap, int partitions, int rate, int recordSize,
                         Duration warmup, int moves, Duration interval, Duration settle, Path json, Path chart,
                         Map<String, String> brokerConfigs, Deployment deployment, String acks, Map<String, String> fastleaderConfigs,
                         boolean countKafkaClientRequests, int slowBatchMillis, List<BrokerRow> brokerRows,
                         Duration steady) {

    static final String HELP = """
        Runs fastleader's clients side by side with kafka-clients' through leader moves on one real
        Kafka cluster. Each variant runs in a child JVM with its own classpath: a producer at a fixed
        rate (acks=all with idempotence on, or acks=1 without; linger.ms=0) and a consumer of every
        partition, all on one topic (RF 3, min.insync.replicas 2). Prints progress every 5 s per variant, then a table of
        produce (send to acknowledgement) and end-to-end (send to poll) latency, records lost and
        duplicated, and the requests each variant spent per move, by API (what it sent from the
        move's start to half way through the pause after it, less its quiet rate just before);
        writes every figure as JSON and a PNG chart of each second's worst end-to-end latency,
        with the disturbances shaded. With the brokers in this JVM, it also splits every record's
        produce latency into the time a Produce request carrying its partition was at a broker
        (from the brokers' request log) and the client's rest, and shows the split of the records
        at p99, p99.9, p99.99 and the slowest. It gives produce p99.9 over the run and over the
        records sent within the moves' windows (each move's start to half way through the pause
        after it), with the share of records inside. With several --broker-rows, the scenario runs
        once per row, each on a fresh cluster, and a summary of the rows comes last.

        java -cp benchmarks/target/benchmarks.jar io.fastleader.benchmarks.leadermove.LeaderMoveBenchmark [options]

          --scenario S       roll (default): every broker restarts once, gracefully, one at a time,
                             and gets its leaderships back by a preferred election;
                             reassign: every partition's replica list rotates, --moves times;
                             kip951: the KIP-951 measurement: 100 partitions, 1 KB records at
                             %d records/s per variant, a long steady run (--steady), then one
                             rotation of every replica list and --interval after it
          --profile P        the deployment the cluster models (default loopback): %s
                             (each sets the three options below; given options override it)
          --client-rtt-ms N  round trip from every client to every broker, through a delay link
                             per broker
          --broker-rtt-ms N  round trip between brokers (replication, controller traffic)
          --metadata-lag-ms N  broker %d's metadata trails the controller by N ms (needs
                             --brokers child_jvm)
          --security S       plaintext (default) or sasl_ssl: SCRAM-SHA-512 over TLS, so every
                             connection pays both handshakes
          --acks A           all (default, idempotence on) or 1 (idempotence off): acks=1 shows
                             the client's share of a move without the replication floor
          --variants LIST    comma-separated, default all: %s
          --bootstrap HOST:PORT  use this cluster (reassign and kip951 only; needs rights to create topics
                             and reassign partitions) instead of 3 brokers started in this JVM
          --partitions N     partitions of the topic (default 100 for reassign and kip951, 30 for roll)
          --rate N           records per second per variant (default 50; kip951 %d)
          --record-size N    bytes per record value (default 512; kip951 1024)
          --warmup S         seconds of traffic before the first disturbance, left out of the
                             percentiles (default 30 for reassign and kip951, 15 for roll: 100 partitions
                             take longer to settle on 2 cores)
          --moves N          reassign: rotations (default 3)
          --interval S       reassign: seconds between rotations; kip951: after the rotation (default 10)
          --settle S         roll: seconds after a broker is back before the next stops (default 10)
          --steady S         kip951: seconds of measured traffic before the move (default %d)
          --broker-config K=V,K=V  settings for the brokers this tool starts, e.g.
                             replica.fetch.backoff.ms=100
          --broker-rows LIST the brokers' settings to run with, one fresh cluster and run each,
                             comma-separated (default default): default, the fixtures' settings;
                             tuned, replica.fetch.backoff.ms=100 on top (both on top of
                             --broker-config)
          --brokers WHERE    in_jvm: the 3 brokers in this JVM; child_jvm: one JVM each (default:
                             as the profile says)
          --fastleader-config K=V,K=V  settings for the fastleader variants' producer and
                             consumer, e.g. fastleader.leader.hint.confirmation.delay.ms=0
          --count-kafka-requests on|off  on (default): count kafka-clients' requests per API
                             from NetworkClient's DEBUG log, which makes kafka-clients format
                             all its DEBUG lines; off: leave them uncounted
          --slow-batch-ms N  the fastleader variants log where every batch slower than this
                             waited (fastleader.slow.batch.log.ms); the report shows the slowest
                             (default: 50 + 2 client round trips)
          --json PATH        figures, every row's (default benchmarks/target/leader-move-<scenario>.json)
          --chart PATH       chart, one per row with the row's name before the extension
                             (default benchmarks/target/leader-move-<scenario>.png)
        """.formatted(Scenario.KIP951_RATE, NetworkProfile.labels(), Deployment.LAGGING_BROKER, Variant.labels(), Scenario.KIP951_RATE,
        Scenario.KIP951_STEADY_SECONDS);

    static LeaderMoveOptions read(CommandLine line) {
        Scenario scenario = Scenario.valueOf(line.string("--scenario", "roll").toUpperCase(Locale.ROOT));
        List<Variant> variants = Arrays.stream(line.string("--variants", Variant.labels()).split(","))
            .map(String::trim).map(Variant::ofLabel).toList();
        String bootstrap = line.string("--bootstrap", null);
        if (bootstrap != null && scenario == Scenario.ROLL) {
            throw new IllegalArgumentException("--scenario roll restarts brokers, so it needs the cluster this tool starts: drop --bootstrap");
        }
        int partitions = line.integer("--partitions", scenario == Scenario.ROLL ? 30 : 100);
        int rate = line.integer("--rate", scenario == Scenario.KIP951 ? Scenario.KIP951_RATE : 50);
        CommandLine.requirePositive("--partitions", partitions);
        CommandLine.requirePositive("--rate", rate);
        String name = "benchmarks/target/leader-move-" + scenario.name().toLowerCase(Locale.ROOT);
        Duration warmup = line.seconds("--warmup", scenario == Scenario.ROLL ? 15 : 30);
        Deployment deployment = deployment(line);
        String acks = line.string("--acks", "all");
        if (!acks.equals("all") && !acks.equals("1")) {
            throw new IllegalArgumentException("--acks " + acks + ": expected all or 1");
        }
        int slowBatchMillis = line.integer("--slow-batch-ms", 50 + 2 * (int) deployment.clientRtt().toMillis());
        List<BrokerRow> brokerRows = Arrays.stream(line.string("--broker-rows", BrokerRow.DEFAULT.label()).split(","))
            .map(String::trim).map(BrokerRow::ofLabel).distinct().toList();
        if (bootstrap != null && !brokerRows.equals(List.of(BrokerRow.DEFAULT))) {
            throw new IllegalArgumentException("--broker-rows needs the clusters this tool starts: drop --bootstrap");
        }
        return new LeaderMoveOptions(scenario, variants, bootstrap, partitions, rate,
            line.integer("--record-size", scenario == Scenario.KIP951 ? 1024 : 512), warmup,
            line.integer("--moves", 3), line.seconds("--interval", 10), line.seconds("--settle", 10),
            line.path("--json", name + ".json"), line.path("--chart", name + ".png"), line.settings("--broker-config"),
            deployment, acks, line.settings("--fastleader-config"), line.onOff("--count-kafka-requests", true), slowBatchMillis,
            brokerRows, line.seconds("--steady", Scenario.KIP951_STEADY_SECONDS));
    }

    private static Deployment deployment(CommandLine line) {
        NetworkProfile profile = NetworkProfile.ofLabel(line.string("--profile", NetworkProfile.LOOPBACK.label()));
        return new Deployment(profile,
            millis(line, "--client-rtt-ms", profile.clientRtt()), millis(line, "--broker-rtt-ms", profile.brokerRtt()),
            millis(line, "--metadata-lag-ms", profile.metadataLag()), line.string("--security", "plaintext").toUpperCase(Locale.ROOT),
            brokers(line.string("--brokers", profile.brokers().name().toLowerCase(Locale.ROOT))));
    }

    private static Duration millis(CommandLine line, String name, Duration profileValue) {
        return Duration.ofMillis(line.integer(name, (int) profileValue.toMillis()));
    }

    private static Execution brokers(String where) {
        return switch (where) {
            case "in_jvm" -> Execution.IN_JVM;
            case "child_jvm" -> Execution.CHILD_JVM;
            default -> throw new IllegalArgumentException("--brokers " + where + ": expected in_jvm or child_jvm");
        };
    }
}
