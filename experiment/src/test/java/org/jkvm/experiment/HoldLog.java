package org.jkvm.experiment;

import java.nio.file.Path;

/** A second process for {@link ResultsLogWritersTest}: opens the log named, says "open", and holds it until stdin closes. */
final class HoldLog {
    private HoldLog() {}

    public static void main(String[] args) throws Exception {
        try (ResultsLog log = ResultsLog.open(Path.of(args[0]))) {
            System.out.println("open " + log.results().size());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the test closes our stdin
            }
        }
    }
}
