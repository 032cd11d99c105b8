package org.jkvm.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * The training run of a JDK AOT cache ({@code arm64-host/aot-cache}): several jkvm command lines,
 * one after another, in one JVM. A JVM trains one cache, and a cache holds only the classes and
 * profiles its training used: trained on {@code run} alone, it left {@code experiment}'s classes
 * to be loaded from the jar, verified and interpreted at every experiment's start, about 2 of its
 * 6 seconds in the emulated arm64 host (bench/sweep/README.md, "The experiment's classes in the AOT cache").
 *
 * <p>{@code java -XX:AOTCacheOutput=FILE -cp jkvm.jar org.jkvm.cli.AotTraining ARGS [--then ARGS]...}:
 * each ARGS is a jkvm command line; the first that fails ends the training with its exit code.
 * The cache serves {@code java -jar jkvm.jar} too: the class path is the same jar.
 */
public final class AotTraining {
    /** What separates two command lines. */
    private static final String THEN = "--then";

    private AotTraining() {}

    /** Runs each command line and exits with the first failure's code, or 0. */
    public static void main(String[] args) {
        List<List<String>> lines;
        try {
            lines = commandLines(args);
        } catch (IllegalArgumentException e) {
            System.err.println("jkvm AOT training: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(run(lines));
    }

    private static int run(List<List<String>> lines) {
        for (List<String> line : lines) {
            int code = Main.execute(line.toArray(String[]::new));
            if (code != 0) return code;
        }
        return 0;
    }

    /** The command lines {@code args} holds, split at each {@link #THEN}. */
    private static List<List<String>> commandLines(String[] args) {
        List<String> all = List.of(args);
        List<List<String>> lines = new ArrayList<>();
        int start = 0;
        for (int i = 0; i <= args.length; i++) {
            if (i == args.length || args[i].equals(THEN)) {
                if (i == start) {
                    throw new IllegalArgumentException("an empty command line in " + all
                            + ": give jkvm's arguments before, between and after each " + THEN);
                }
                lines.add(all.subList(start, i));
                start = i + 1;
            }
        }
        return lines;
    }
}
