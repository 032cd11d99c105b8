package org.jkvm.vmm.jfr;

import jdk.jfr.Event;
import jdk.jfr.FlightRecorder;

/**
 * A periodic JFR event's hook, registered only where a recording may want it: when the Flight
 * Recorder is already initialized (by {@code jkvm run --record}, {@code -XX:StartFlightRecording}
 * or a test's {@code Recording}). Without one, nothing of JFR starts, so a run without a
 * recording pays nothing for jkvm's events. Closing removes the hook.
 */
public final class PeriodicHook implements AutoCloseable {
    private final Runnable hook;

    private PeriodicHook(Runnable hook) {
        this.hook = hook;
    }

    /** Registers {@code hook} to record {@code type} each period, if the Flight Recorder is initialized. */
    public static PeriodicHook register(Class<? extends Event> type, Runnable hook) {
        if (!FlightRecorder.isInitialized()) return new PeriodicHook(null);
        FlightRecorder.addPeriodicEvent(type, hook);
        return new PeriodicHook(hook);
    }

    /** Whether the hook was registered: only then does recording its events mean anything. */
    public boolean registered() {
        return hook != null;
    }

    @Override
    public void close() {
        if (hook != null) FlightRecorder.removePeriodicEvent(hook);
    }
}
