package org.jkvm.experiment;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

import org.jkvm.pvlock.StalenessHistogram;

/**
 * How late the userspace PV-lock tracker wrote {@code preempted} in one run: from each scheduler
 * switch of a vCPU thread to jkvm's write of its flag, over every VM of the run. A run records it
 * among its host figures only where a tracker read switches (userspace mode, a guest that made
 * its PV-lock call); kernel mode's flags are the host kernel's and have no such delay.
 *
 * @param switches   switches the trackers read
 * @param meanUs     their mean delay, microseconds
 * @param p99BoundUs an upper bound of the 99th percentile (the histogram's power-of-two buckets)
 * @param maxUs      the longest delay
 * @param wakeups    how many times the trackers' threads woke to read switches, or -1 where the
 *                   run did not record it (results logged before jkvm counted them)
 * @param dropped    switch records the kernel dropped because a tracker had not read a vCPU thread's
 *                   ring in time, or -1 where the run did not record it (results logged before jkvm counted them)
 * @param ringsFull  how many times a tracker found a vCPU thread's ring full (the kernel may have dropped records there
 *                   that no count reached, at the run's end), or -1 where the run did not record it
 */
public record TrackerDelay(long switches, double meanUs, double p99BoundUs, double maxUs, long wakeups, long dropped,
                           long ringsFull) {
    static final String SWITCHES = "flag_delay_switches";
    static final String MEAN_US = "flag_delay_us_mean";
    static final String P99_BOUND_US = "flag_delay_us_p99_bound";
    static final String MAX_US = "flag_delay_us_max";
    static final String WAKEUPS = "tracker_wakeups";
    static final String DROPPED = "tracker_records_dropped";
    static final String RINGS_FULL = "tracker_rings_full";

    /**
     * Adds the delays of {@code delays}, the trackers' {@code wakeups}, the switch records the
     * kernel {@code dropped} and how many times a ring was found full to a run's host figures,
     * where it holds any delay.
     */
    static void put(Map<String, Number> host, StalenessHistogram delays, long wakeups, long dropped, long ringsFull) {
        if (delays.count() == 0) return;
        host.put(SWITCHES, delays.count());
        host.put(MEAN_US, delays.meanNanos() / 1e3);
        host.put(P99_BOUND_US, delays.p99BoundNanos() / 1e3);
        host.put(MAX_US, delays.maxNanos() / 1e3);
        host.put(WAKEUPS, wakeups);
        host.put(DROPPED, dropped);
        host.put(RINGS_FULL, ringsFull);
    }

    /** The delays a successful run recorded, if it recorded them. */
    static Optional<TrackerDelay> of(RunResult r) {
        Map<String, Number> h = r.host();
        if (!r.ok() || !h.containsKey(SWITCHES) || !h.containsKey(MEAN_US) || !h.containsKey(P99_BOUND_US)
                || !h.containsKey(MAX_US)) {
            return Optional.empty();
        }
        return Optional.of(new TrackerDelay(h.get(SWITCHES).longValue(), h.get(MEAN_US).doubleValue(),
                h.get(P99_BOUND_US).doubleValue(), h.get(MAX_US).doubleValue(),
                RecordedCount.of(h, WAKEUPS), RecordedCount.of(h, DROPPED), RecordedCount.of(h, RINGS_FULL)));
    }

    /**
     * A cell's runs: medians over them, with a 95% bootstrap interval of the median of the runs'
     * mean delays ({@link MedianInterval#ofMedian}), so two variants' delays can be told apart.
     *
     * @param runs           runs that recorded delays
     * @param switches       median switches read per run
     * @param meanUs         median of the runs' mean delays
     * @param meanInterval   its interval, in microseconds
     * @param p99BoundUs     median of the runs' 99th-percentile bounds
     * @param maxUs          the longest delay of any run (NaN where no run gave one)
     * @param wakeups        median wake-ups of the trackers per run, over the runs that counted them (NaN where none did)
     * @param dropped        switch records the kernel dropped, summed over the runs that counted them (-1 where none did)
     * @param ringsFull      times a ring was found full, summed as {@code dropped}
     */
    public record Summary(int runs, double switches, double meanUs, MedianInterval meanInterval, double p99BoundUs,
                          double maxUs, double wakeups, long dropped, long ringsFull) {
        /** The summary of {@code runs}, or null for none. */
        static Summary of(List<TrackerDelay> runs) {
            if (runs.isEmpty()) return null;
            double[] means = figures(runs, TrackerDelay::meanUs);
            return new Summary(runs.size(), Stats.of(figures(runs, TrackerDelay::switches)).median(),
                    Stats.of(means).median(), MedianInterval.ofMedian(means),
                    Stats.of(figures(runs, TrackerDelay::p99BoundUs)).median(),
                    Arrays.stream(figures(runs, TrackerDelay::maxUs)).filter(Double::isFinite).max().orElse(Double.NaN),
                    wakeups(runs), RecordedCount.sum(runs.stream().mapToLong(TrackerDelay::dropped).toArray()),
                    RecordedCount.sum(runs.stream().mapToLong(TrackerDelay::ringsFull).toArray()));
        }

        private static double wakeups(List<TrackerDelay> runs) {
            double[] counted = runs.stream().filter(r -> r.wakeups() >= 0).mapToDouble(TrackerDelay::wakeups).toArray();
            return counted.length == 0 ? Double.NaN : Stats.of(counted).median();
        }

        private static double[] figures(List<TrackerDelay> runs, ToDoubleFunction<TrackerDelay> figure) {
            return runs.stream().mapToDouble(figure).toArray();
        }
    }
}
