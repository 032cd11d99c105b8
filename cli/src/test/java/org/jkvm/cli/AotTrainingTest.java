package org.jkvm.cli;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The AOT cache's training entry, in a JVM of its own: each command line in turn, stopping at the first failure. */
@Tag("unit")
class AotTrainingTest {
    record Outcome(int code, String out, String err) {}

    static Outcome train(String... args) throws Exception {
        Process p = StdoutTest.java(AotTraining.class, args).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return new Outcome(p.exitValue(), out, err);
    }

    @Test
    void runsEachCommandLineInTurn() throws Exception {
        Outcome o = train("--version", "--then", "experiment", "--help");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().startsWith("jkvm "), o.out());
        assertTrue(o.out().contains("Usage: jkvm experiment"), o.out());
    }

    @Test
    void theFirstFailureEndsTheTrainingWithItsCode() throws Exception {
        Outcome o = train("--version", "--then", "--no-such-option", "--then", "--version");
        assertEquals(2, o.code(), o.err());
        assertEquals(1, o.out().lines().filter(l -> l.startsWith("jkvm ")).count(), o.out());
        assertTrue(o.err().contains("--no-such-option"), o.err());
    }

    @Test
    void anEmptyCommandLineIsRefused() throws Exception {
        Outcome o = train("--version", "--then");
        assertEquals(2, o.code());
        assertEquals("", o.out());
        assertTrue(o.err().startsWith("jkvm AOT training: an empty command line in [--version, --then]"), o.err());
    }
}
