package org.jkvm.experiment;

import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.jkvm.experiment.ExperimentSpec.Variant;

/**
 * Which variants a host boot can run. A variant's {@code host_kernel_args} need a host booted with
 * exactly those of the spec's host arguments: a variant without any runs only on a host that has
 * none of them, so a base variant never runs by accident under another variant's WFE policy.
 * Arguments the spec never names (console=, quiet...) do not matter.
 */
public final class HostKernelArgs {
    private HostKernelArgs() {}

    /** The arguments of one variant, as a set ({@code ""} and null: none). */
    public static Set<String> of(Variant v) {
        return tokens(v.hostKernelArgs());
    }

    /** Every distinct host argument set the spec's variants need, in variant order. */
    public static List<Set<String>> groups(ExperimentSpec spec) {
        Set<Set<String>> groups = new LinkedHashSet<>();
        for (Variant v : spec.variants()) groups.add(of(v));
        return List.copyOf(groups);
    }

    /** The spec's host arguments present in a host's command line. */
    public static Set<String> booted(ExperimentSpec spec, String hostCmdline) {
        Set<String> named = new TreeSet<>();
        for (Variant v : spec.variants()) named.addAll(of(v));
        Set<String> have = tokens(hostCmdline);
        named.retainAll(have);
        return named;
    }

    /** Whether a host with this command line runs the variant: its set is exactly {@link #booted}. */
    public static boolean runsOn(ExperimentSpec spec, Variant v, String hostCmdline) {
        return booted(spec, hostCmdline).equals(of(v));
    }

    /** One set as the command line takes it. */
    public static String text(Set<String> args) {
        return String.join(" ", args);
    }

    private static Set<String> tokens(String args) {
        if (args == null || args.isBlank()) return new TreeSet<>();
        return new TreeSet<>(Arrays.asList(args.strip().split("\\s+")));
    }
}
