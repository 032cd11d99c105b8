package org.jkvm.cli;

import org.jkvm.kvm.Terminal;

/**
 * jkvm run's standard input in raw mode while the guest runs, when it is a terminal: keys go to
 * the guest's console as they are typed and only the guest echoes them (a password is not shown
 * by the host), while Ctrl-C still stops jkvm. A pipe or a file is left as it is. The settings
 * come back on {@link #close}, and from a shutdown hook when the JVM ends some other way first.
 */
final class RawStdin implements AutoCloseable {
    private static final int STDIN = 0;

    private final Terminal saved;
    private final Thread hook;

    private RawStdin(Terminal saved, Thread hook) {
        this.saved = saved;
        this.hook = hook;
    }

    /** Raw mode on standard input if it is a terminal; otherwise nothing changes. */
    static RawStdin enter() {
        if (!Terminal.isTerminal(STDIN)) return new RawStdin(null, null);
        Terminal saved = Terminal.raw(STDIN);
        Thread hook = new Thread(saved::close, "restore-terminal");
        Runtime.getRuntime().addShutdownHook(hook);
        return new RawStdin(saved, hook);
    }

    /** Restores the terminal's settings (once; nothing for a pipe or a file). */
    @Override
    public void close() {
        if (saved == null) return;
        try {
            saved.close();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // The JVM is already shutting down: the hook runs, and finds the settings restored.
            }
        }
    }
}
