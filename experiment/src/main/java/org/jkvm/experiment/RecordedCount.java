package org.jkvm.experiment;

import java.util.Arrays;
import java.util.Map;

/**
 * A count among a run's host figures that older results may lack, as they were logged before jkvm
 * counted it: -1 stands for "not recorded", so a report tells "none counted" from "counted none".
 */
final class RecordedCount {
    private RecordedCount() {}

    /** The count {@code key} of a run's host figures, or -1 where the run did not record it. */
    static long of(Map<String, Number> host, String key) {
        return host.containsKey(key) ? host.get(key).longValue() : -1;
    }

    /** The sum of the counts that runs recorded (those at 0 or more), or -1 where none did. */
    static long sum(long[] counts) {
        return Arrays.stream(counts).anyMatch(c -> c >= 0) ? Arrays.stream(counts).filter(c -> c >= 0).sum() : -1;
    }
}
