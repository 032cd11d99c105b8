package org.jkvm.vmm.profile;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a profile leaves in its folder ({@code jkvm run --profile-out DIR}, and each profiled run
 * of an experiment): the folded stacks, the categories as CSV, and the flame graph; where the
 * guest marked its workload's window, those of the window, with the whole run's in
 * {@value #WHOLE_RUN}/ beside them.
 */
public final class ProfileFiles {
    /** The folded stacks, one {@code vcpuN;outer;...;leaf count} line each. */
    public static final String FOLDED = "profile.folded";
    /** {@link CategoryRollup#csv()}. */
    public static final String CATEGORIES = "categories.csv";
    /** {@link FlameGraphSvg}'s drawing of the folded stacks. */
    public static final String FLAME_GRAPH = "flame.svg";
    /** All of them, in the order above. */
    public static final List<String> NAMES = List.of(FOLDED, CATEGORIES, FLAME_GRAPH);
    /** The folder, beside the profile of a workload's window, of the whole run's profile. */
    public static final String WHOLE_RUN = "whole-run";

    private ProfileFiles() {}

    /** Each file's name and its whole content, in the order above. */
    public static Map<String, String> of(ProfileReport report, CategoryRollup categories, String title) {
        Map<String, String> files = new LinkedHashMap<>();
        files.put(FOLDED, String.join("\n", report.folded()) + (report.folded().isEmpty() ? "" : "\n"));
        files.put(CATEGORIES, categories.csv());
        files.put(FLAME_GRAPH, FlameGraphSvg.render(report.folded(), title + ": " + report.samples() + " samples"));
        return files;
    }
}
