package org.jkvm.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import org.jkvm.vmm.jfr.FlightRecording;

import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code jkvm run --record FILE} (an option added to its picocli model): a JFR recording of the run, with jkvm's own
 * events, written to FILE when the guest has ended; the file is claimed before the guest
 * starts, like every file the run writes.
 */
final class RecordOption {
    private Path file;

    /** Adds --record to {@code spec}, bound to this. */
    void addTo(CommandSpec spec) {
        spec.addOption(OptionBinding.option("--record", "FILE", Path.class, () -> file, v -> file = v)
                .description("Write a JFR recording of the run (the JDK's default settings and jkvm's org.jkvm.* events:"
                        + " exits per vCPU and kind, PV-lock counts, guest-profile samples) to FILE; `jfr` and JDK Mission"
                        + " Control read it.").build());
    }

    /** Adds --record, if given, to what the run writes. */
    void addOutputs(Map<Path, String> outputs) {
        if (file != null) outputs.put(file, "--record");
    }

    /** --record claimed before boot, or null. */
    ClaimedOutput claim() {
        return file == null ? null : ClaimedOutput.claim("--record", file);
    }

    /** The recording, started now if --record was given (before the VM is built, so its events register), or null. */
    FlightRecording start() {
        return file == null ? null : FlightRecording.start();
    }

    /** After the run: stops the recording and writes it into the claimed file. */
    static void write(FlightRecording recording, ClaimedOutput claimed) throws IOException {
        if (recording != null) claimed.produce(recording::stopAndDump);
    }
}
