package org.jkvm.cli;

/** What the {@code jkvm} process's exit status means. */
public final class ExitCode {
    private ExitCode() {}

    /** Success. */
    public static final int OK = 0;
    /** Something failed while running (a KVM call, the VMM itself). */
    public static final int FAILURE = 1;
    /** Bad usage or input, or a host that cannot do what was asked. */
    public static final int USAGE = 2;
}
