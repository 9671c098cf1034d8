package io.fastleader.benchmarks.transactions;

import java.util.BitSet;
import java.util.Map;

/**
 * What a pipeline's output holds against what its input was given: each input record is known by
 * its number (the feed's key), and the output, read {@code read_committed}, should hold every
 * acknowledged one exactly once.
 *
 * @param acknowledged             input records the feed had acknowledged
 * @param outputRecords            records in the output
 * @param missing                  acknowledged input records the output does not hold: LOST
 * @param duplicates               copies beyond the first of records the output holds more than once
 * @param unacknowledgedInOutput   distinct output records whose input send failed at the feed (written anyway; not an error of the pipeline)
 */
record ExactlyOnce(long acknowledged, long outputRecords, long missing, long duplicates, long unacknowledgedInOutput) {

    /** The tally of {@code acknowledged} input numbers against {@code copies}, each output number's count. */
    static ExactlyOnce of(BitSet acknowledged, Map<Long, Integer> copies) {
        long missing = 0;
        for (int number = acknowledged.nextSetBit(0); number >= 0; number = acknowledged.nextSetBit(number + 1)) {
            if (!copies.containsKey((long) number)) {
                missing++;
            }
        }
        long outputRecords = 0;
        long duplicates = 0;
        long unacknowledged = 0;
        for (Map.Entry<Long, Integer> number : copies.entrySet()) {
            outputRecords += number.getValue();
            duplicates += number.getValue() - 1;
            if (number.getKey() > Integer.MAX_VALUE || !acknowledged.get(number.getKey().intValue())) {
                unacknowledged++;
            }
        }
        return new ExactlyOnce(acknowledged.cardinality(), outputRecords, missing, duplicates, unacknowledged);
    }

    /** Whether every acknowledged input record is in the output, and none twice. */
    boolean holds() {
        return missing == 0 && duplicates == 0;
    }
}
