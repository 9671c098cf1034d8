package io.fastleader.it.leadermove;

import java.util.Arrays;
import java.util.stream.Stream;

import org.junit.jupiter.params.provider.Arguments;

/** Which partitions have traffic while a scenario moves their leaders. */
enum Load {
    /** Records go to every partition. */
    EVERY_PARTITION,
    /** Records go to three partitions; the others stay idle until the disturbance is over. */
    FEW_PARTITIONS;

    private static final int FEW = 3;

    /** How many of {@code partitions} get records while the leaders move. */
    int busyPartitions(int partitions) {
        return this == EVERY_PARTITION ? partitions : FEW;
    }

    /** Every pairing of {@link Hints} and load, for a parameterized scenario. */
    static Stream<Arguments> withHints() {
        return Arrays.stream(Hints.values()).flatMap(hints -> Arrays.stream(values()).map(load -> Arguments.of(hints, load)));
    }
}
