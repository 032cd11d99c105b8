import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.sun.management.ThreadMXBean;

import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.jfr.ExitCountEvents;
import org.jkvm.vmm.jfr.FlightRecording;
import org.jkvm.vmm.vcpu.MachineControl;
import org.jkvm.vmm.vcpu.VcpuLoop;

/**
 * jkvm's own vCPU loop as the exit benchmarks measure it (ExitLoop, HvcLoop): the machine that
 * stops the loop after a warm-up and the measured exits. The device or handler the guest's exits
 * reach calls {@link #exited} each time; from inside the one run of the loop, so the measurement
 * sees the loop as a VM's life does (compiled once, never left), it marks halfway through the
 * warm-up (so the JIT has seen a mark before it compiles the loop), at the warm-up's end and at
 * the end: the clock, the loop's time outside KVM_RUN (where it times its exits), the bytes the
 * vCPU thread allocated. With {@code record}, the loop runs under what {@code jkvm run --record}
 * turns on (a JFR recording with the default settings and jkvm's periodic exit events), and JFR's
 * allocation samples on the vCPU thread while measured are counted.
 */
final class MeasuredLoop implements MachineControl {
    private final long exits;
    private final long[] marks;
    private final ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final long[] clock = new long[3];
    private final long[] outside = new long[3];
    private final long[] allocated = new long[3];
    private final long[] wallMillis = new long[3];
    private int marked;
    private long seen;
    private VcpuLoop loop;
    private VmOutcome outcome;

    MeasuredLoop(long warmup, long exits) {
        this.exits = exits;
        marks = new long[] {warmup / 2, warmup, warmup + exits, Long.MAX_VALUE};
    }

    /** One more exit reached the device or handler. */
    void exited() {
        if (++seen == marks[marked]) {
            clock[marked] = System.nanoTime();
            outside[marked] = loop.stats().nanosOutside();
            allocated[marked] = threads.getCurrentThreadAllocatedBytes();
            wallMillis[marked] = System.currentTimeMillis();
            marked++;
        }
    }

    /**
     * Runs {@code vcpuLoop} (built with this as its machine) to the end, timing its exits if
     * {@code timed} (as {@code --stats-json} and experiments do); returns "N ns/exit (E exits, O
     * ns/exit in jkvm outside KVM_RUN or 'exits not timed', A B/exit allocated[, the recording's figures]".
     */
    String run(VcpuLoop vcpuLoop, boolean timed, boolean record) throws IOException {
        loop = vcpuLoop;
        if (timed) vcpuLoop.timeExits();
        String jfr = "";
        if (record) {
            Path file = Files.createTempFile("exit-loop", ".jfr");
            try (FlightRecording recording = FlightRecording.start();
                 ExitCountEvents events = ExitCountEvents.watch(() -> List.of(vcpuLoop.stats()))) {
                vcpuLoop.run();
                events.emit();
                recording.stopAndDump(file);
                jfr = ", " + jfrFigures(file);
            } finally {
                Files.delete(file);
            }
        } else {
            vcpuLoop.run();
        }
        if (outcome != null) throw new IllegalStateException("the VM ended: " + outcome);
        String outsideRun = timed ? String.format("%.1f ns/exit in jkvm outside KVM_RUN", measured(outside) / exits)
                : "exits not timed";
        return String.format("%.1f ns/exit (%d exits, %s, %.2f B/exit allocated%s",
                measured(clock) / exits, exits, outsideRun, measured(allocated) / exits, jfr);
    }

    /** What {@code figure} grew by over the measured exits. */
    private double measured(long[] figure) {
        return figure[2] - figure[1];
    }

    /** The recording's exit events, and its allocation samples on this (the vCPU's) thread while measured. */
    private String jfrFigures(Path file) throws IOException {
        long thread = Thread.currentThread().threadId();
        long exitEvents = 0, samples = 0, sampledBytes = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            String name = e.getEventType().getName();
            if (name.equals("org.jkvm.VcpuExits")) exitEvents++;
            long at = e.getStartTime().toEpochMilli();
            if (name.equals("jdk.ObjectAllocationSample") && e.getThread("eventThread") != null
                    && e.getThread("eventThread").getJavaThreadId() == thread
                    && at >= wallMillis[1] && at <= wallMillis[2]) {
                samples++;
                sampledBytes += e.getLong("weight");
            }
        }
        return exitEvents + " org.jkvm.VcpuExits events, " + samples + " JFR allocation samples on the vCPU thread while measured ("
                + sampledBytes + " B)";
    }

    @Override
    public boolean stopping() {
        return marked == 3 || outcome != null;
    }

    @Override
    public void finish(VmOutcome o) {
        if (outcome == null) outcome = o;
    }
}
