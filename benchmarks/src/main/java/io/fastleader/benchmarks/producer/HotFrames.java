package io.fastleader.benchmarks.producer;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.fastleader.benchmarks.common.ClientVariant;
import io.fastleader.benchmarks.common.CommandLine;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where some threads spent their CPU, from the {@code jdk.ExecutionSample} events of a JDK Flight
 * Recorder file: per method, the share of samples in which it was the top frame (<em>self</em>:
 * the method itself was running) and in which it was anywhere on the stack (<em>total</em>: it or
 * what it called was running). A method on a stack twice, through recursion, counts once there.
 * Run on a file of the steady scenario ({@code --profile-jfr}), it looks at the producer's threads
 * and the thread that calls {@code send}:
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.fastleader.benchmarks.producer.HotFrames --jfr FILE [--top 25]
 * </pre>
 *
 * @param samples execution samples counted
 * @param self    per method (class and name), the samples with it on top
 * @param total   per method, the samples with it anywhere on the stack
 */
public record HotFrames(int samples, Map<String, Integer> self, Map<String, Integer> total) {

    /** The steady scenario's client threads: either client's producer threads, and the sending thread. */
    static final Predicate<String> STEADY_CLIENT_THREADS = name -> name.equals(SteadyScenario.SENDER_THREAD)
        || ClientVariant.FASTLEADER.ownsProducerThread(name) || ClientVariant.KAFKA_CLIENTS.ownsProducerThread(name);

    /** The counts, fixed. */
    public HotFrames {
        self = Map.copyOf(self);
        total = Map.copyOf(total);
    }

    /** Counts {@code stacks}, each a list of methods, the running one first. */
    static HotFrames count(List<List<String>> stacks) {
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> total = new HashMap<>();
        for (List<String> stack : stacks) {
            if (stack.isEmpty()) {
                continue;
            }
            self.merge(stack.get(0), 1, Integer::sum);
            for (String method : new HashSet<>(stack)) {
                total.merge(method, 1, Integer::sum);
            }
        }
        return new HotFrames((int) stacks.stream().filter(stack -> !stack.isEmpty()).count(), self, total);
    }

    /** Counts the execution samples in {@code jfr} of the threads whose names {@code threads} accepts. */
    static HotFrames read(Path jfr, Predicate<String> threads) throws IOException {
        List<List<String>> stacks = new ArrayList<>();
        try (RecordingFile file = new RecordingFile(jfr)) {
            while (file.hasMoreEvents()) {
                RecordedEvent event = file.readEvent();
                if (event.getEventType().getName().equals("jdk.ExecutionSample") && event.getStackTrace() != null
                    && sampledThreadIn(event, threads)) {
                    stacks.add(event.getStackTrace().getFrames().stream().filter(RecordedFrame::isJavaFrame)
                        .map(frame -> frame.getMethod().getType().getName() + "." + frame.getMethod().getName()).toList());
                }
            }
        }
        return count(stacks);
    }

    private static boolean sampledThreadIn(RecordedEvent sample, Predicate<String> threads) {
        RecordedThread thread = sample.getThread("sampledThread");
        return thread != null && thread.getJavaName() != null && threads.test(thread.getJavaName());
    }

    /** The {@code top} methods of {@code counts}, most samples first, ties by name. */
    static List<Map.Entry<String, Integer>> top(Map<String, Integer> counts, int top) {
        return counts.entrySet().stream()
            .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()).thenComparing(Map.Entry.comparingByKey()))
            .limit(top).toList();
    }

    /** Prints the {@code top} methods by self samples, then by total samples. */
    void print(PrintStream out, int top) {
        out.printf("  %,d samples of the client's threads%n", samples);
        printTop(out, "self (the method itself was running)", self, top);
        printTop(out, "total (it or what it called was running)", total, top);
    }

    private void printTop(PrintStream out, String heading, Map<String, Integer> counts, int top) {
        out.println("  " + heading + ":");
        for (Map.Entry<String, Integer> method : top(counts, top)) {
            out.printf("  %6.1f %%  %s%n", 100.0 * method.getValue() / samples, method.getKey());
        }
    }

    /** Prints the hot methods of the steady scenario's client threads in the file {@code --jfr} names. */
    public static void main(String[] args) throws IOException {
        Options options = CommandLine.parseOrExit(args, Options.HELP, Options::read);
        if (options != null) {
            read(options.jfr(), STEADY_CLIENT_THREADS).print(System.out, options.top());
        }
    }

    private record Options(Path jfr, int top) {

        static final String HELP = """
            Usage: java -cp benchmarks/target/benchmarks.jar io.fastleader.benchmarks.producer.HotFrames --jfr FILE [--top N]

            Prints the methods the producer's threads and the sending thread were running in the
            execution samples of a JDK Flight Recorder file that ProducerBenchmark --profile-jfr
            wrote: by self samples, then by total samples.

              --jfr FILE   the recording (required)
              --top N      methods per list [25]
              --help       this text
            """;

        static Options read(CommandLine line) {
            String jfr = line.string("--jfr", "");
            if (jfr.isEmpty()) {
                throw new IllegalArgumentException("--jfr FILE is required (see --help)");
            }
            int top = line.integer("--top", 25);
            CommandLine.requirePositive("--top", top);
            return new Options(Path.of(jfr), top);
        }
    }
}
