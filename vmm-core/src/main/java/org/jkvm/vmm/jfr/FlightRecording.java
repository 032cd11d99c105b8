package org.jkvm.vmm.jfr;

import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * A JFR recording of a run: the JDK's settings profile (GC, threads, allocation samples, ...) and
 * jkvm's own events ({@code org.jkvm.*}: exits per vCPU and kind, guest-profile samples, the
 * PV-lock device's counts), enabled by their own defaults. Start it before the VM is built, so
 * that the VM and its devices register their periodic events ({@link PeriodicHook}).
 */
public final class FlightRecording implements AutoCloseable {
    /** The JDK settings profile used: low overhead, meant to stay on in production. */
    public static final String SETTINGS = "default";

    private final Recording recording;

    private FlightRecording(Recording recording) {
        this.recording = recording;
    }

    /** Starts a recording with {@link #SETTINGS}. */
    public static FlightRecording start() {
        Configuration settings;
        try {
            settings = Configuration.getConfiguration(SETTINGS);
        } catch (IOException | ParseException e) {
            throw new IllegalStateException("the JDK's JFR settings '" + SETTINGS + "' cannot be read: " + e.getMessage(), e);
        }
        Recording r = new Recording(settings);
        r.setName("jkvm");
        r.setToDisk(true);
        r.start();
        return new FlightRecording(r);
    }

    /** Stops recording and writes what was recorded into {@code file} (a JFR file that {@code jfr} and JMC read). */
    public void stopAndDump(Path file) throws IOException {
        recording.stop();
        recording.dump(file);
    }

    @Override
    public void close() {
        recording.close();
    }
}
