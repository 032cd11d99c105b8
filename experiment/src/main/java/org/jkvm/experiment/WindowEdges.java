package org.jkvm.experiment;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * A guest's console that also marks its workload's window: it passes everything written on to
 * where the console goes (the experiment's record of it, {@code jkvm run}'s standard output), and
 * takes a snapshot of the run's counters ({@code T}: KVM's statistics, the preemptor tally) as
 * the line {@value #READY} (the workloads initramfs prints it just before the workload starts;
 * the root file system's init before a command) and then the first RESULT line
 * ({@link GuestResult}) or {@value #COMMAND_EXIT} line come through, so that the figures cover
 * the workload and not the boot or the power-off. The snapshot is taken on the vCPU thread
 * writing the line, while the guest waits for its console write. It also notes when the ready
 * line came ({@link #readyAt}): where the boot ends, for the run's time to ready.
 *
 * @param <T> what a snapshot holds
 */
public final class WindowEdges<T> extends OutputStream {
    private static final System.Logger LOG = System.getLogger(WindowEdges.class.getName());
    /** The workloads initramfs's line just before the workload starts. */
    static final String READY = "JKVM-GUEST-READY";
    /** The root file system's init's line after a command workload, before its status. */
    static final String COMMAND_EXIT = "JKVM-GUEST-CMD-EXIT";
    private static final int MAX_LINE = 4096;

    private final OutputStream console;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private Supplier<T> snapshot;
    private T start;
    private T end;
    private OptionalLong ready = OptionalLong.empty();

    /**
     * The two snapshots of a window: as the ready line and as the RESULT (or command's exit) line came through.
     *
     * @param start the snapshot at the ready line
     * @param end   the snapshot at the result line
     * @param <T>   what a snapshot holds
     */
    public record Edges<T>(T start, T end) {}

    /** A console passing everything on to {@code console}. */
    public WindowEdges(OutputStream console) {
        this.console = console;
    }

    /** Snapshots from now on come from {@code s}: the launch's counters, known once it is prepared. */
    public synchronized void watch(Supplier<T> s) {
        snapshot = s;
    }

    @Override
    public synchronized void write(int b) throws IOException {
        see(b);
        console.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        // the lines first: a console that fails (a closed standard output) leaves the window whole
        for (int i = off; i < off + len; i++) see(b[i]);
        console.write(b, off, len);
    }

    @Override
    public synchronized void flush() throws IOException {
        console.flush();
    }

    private void see(int b) {
        if (b == '\n') {
            lineEnded(line.toString(StandardCharsets.UTF_8));
            line.reset();
        } else if (line.size() < MAX_LINE) {
            line.write(b);
        }
    }

    private void lineEnded(String text) {
        if (ready.isEmpty() && text.contains(READY)) ready = OptionalLong.of(System.nanoTime());
        if (snapshot == null || end != null) return;
        try {
            if (start == null && text.contains(READY)) start = snapshot.get();
            else if (start != null && (GuestResult.parse(text.strip()).isPresent() || text.contains(COMMAND_EXIT))) end = snapshot.get();
        } catch (RuntimeException e) {
            // On the vCPU thread: a failed read must not end the run; its record keeps the whole run's figures.
            LOG.log(Level.WARNING, "the counters could not be read at the workload's edge; the result keeps the whole run's", e);
            snapshot = null;
            start = null;
        }
    }

    /** When ({@link System#nanoTime}) the first ready line ended, or empty before it has. */
    synchronized OptionalLong readyAt() {
        return ready;
    }

    /** The workload's edges, or empty when the guest did not print both. */
    public synchronized Optional<Edges<T>> edges() {
        return start == null || end == null ? Optional.empty() : Optional.of(new Edges<>(start, end));
    }
}
