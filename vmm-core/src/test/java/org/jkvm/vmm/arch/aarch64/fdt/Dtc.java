package org.jkvm.vmm.arch.aarch64.fdt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The device tree compiler as an independent reader of our blobs: {@code dtc -I dtb -O dts}
 * decompiles them, and a test that needs it is skipped (not passed) where it is missing.
 */
final class Dtc {

    private static final String PACKAGE_HINT =
            "dtc not found on PATH: install the Debian package device-tree-compiler";
    private static final boolean AVAILABLE = probe();

    private Dtc() {}

    /** Skips the calling test unless dtc can be run. */
    static void assumeAvailable() {
        assumeTrue(AVAILABLE, PACKAGE_HINT);
    }

    /**
     * Decompiles a blob. dtc runs its semantic checks on the way; any warning it prints fails
     * the test, so the blob is also checked against what dtc knows of the bindings.
     */
    static String decompile(byte[] dtb) throws IOException, InterruptedException {
        assumeAvailable();
        var file = Files.createTempFile("jkvm-", ".dtb");
        var errorFile = Files.createTempFile("jkvm-dtc-", ".err");
        try {
            Files.write(file, dtb);
            // stderr goes to a file so that neither pipe can fill and stall dtc while we read the other.
            var process = new ProcessBuilder("dtc", "-I", "dtb", "-O", "dts", file.toString())
                    .redirectError(errorFile.toFile())
                    .start();
            var stdout = process.getInputStream().readAllBytes();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("dtc did not finish in 30 s");
            }
            String errors = Files.readString(errorFile);
            assertEquals(0, process.exitValue(), "dtc failed: " + errors);
            assertEquals("", errors, "dtc warnings");
            return new String(stdout, StandardCharsets.UTF_8);
        } finally {
            Files.delete(file);
            Files.delete(errorFile);
        }
    }

    /**
     * Reads dtc's dts output into node path -> (property name -> value as dtc prints it, or "" for
     * a property without a value), relying on dtc printing one node header, property or node end
     * per line.
     */
    static Map<String, Map<String, String>> parse(String dts) {
        var nodes = new LinkedHashMap<String, Map<String, String>>();
        var path = new ArrayDeque<String>();
        for (String raw : dts.lines().toList()) {
            String line = raw.strip();
            if (line.endsWith("{")) {
                String name = line.substring(0, line.length() - 1).strip();
                String full = name.equals("/") ? "/"
                        : (path.peek().equals("/") ? "" : path.peek()) + "/" + name;
                path.push(full);
                nodes.put(full, new LinkedHashMap<>());
            } else if (line.equals("};")) {
                path.pop();
            } else if (line.endsWith(";") && !path.isEmpty()) {
                String body = line.substring(0, line.length() - 1);
                int eq = body.indexOf(" = ");
                var props = nodes.get(path.peek());
                if (eq < 0) {
                    props.put(body, "");
                } else {
                    props.put(body.substring(0, eq), body.substring(eq + 3));
                }
            }
        }
        return nodes;
    }

    private static boolean probe() {
        try {
            var process = new ProcessBuilder("dtc", "--version").redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor(10, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
