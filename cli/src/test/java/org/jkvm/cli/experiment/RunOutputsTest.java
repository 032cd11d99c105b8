package org.jkvm.cli.experiment;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** {@code jkvm experiment run} refuses an --out folder whose report, chart or CSV would replace an input, before any run. */
@Tag("unit")
class RunOutputsTest {
    @TempDir
    Path dir;

    String check(String... args) throws Exception {
        CommandLine cl = new CommandLine(ExperimentCommand.spec());
        cl.parseArgs(args);
        ExperimentRunCommand run = cl.getSubcommands().get("run").getCommand();
        return assertThrows(Exception.class, run::checkOutputs).getMessage();
    }

    @Test
    void anOutputOverAnInputIsRefused() throws Exception {
        Files.createDirectories(dir.resolve("out"));
        Path kernel = Files.write(dir.resolve("out/chart.svg"), ArmImageHeader.bytes());
        Files.writeString(dir.resolve("R"), "x");
        Path spec = Files.writeString(dir.resolve("s.json"), """
                {"name": "s", "guest": {"kernel": "out/chart.svg", "initrd": "R"}, "vcpus": 2, "pin": "0",
                 "workloads": [{"name": "cpu", "workers": 2, "seconds": 1}],
                 "variants": [{"name": "base", "pvlock": "off"}], "repetitions": 1}
                """);
        Path out = dir.resolve("out");
        assertEquals("--out " + kernel + ": is an input of the spec " + kernel + "; choose another folder",
                check("run", spec.toString(), "--out", out.toString()));
        Path log = dir.resolve("o2/results.csv");
        assertEquals("--out " + dir + "/o2/../o2/results.csv: is the results log " + log + "; choose another folder",
                check("run", spec.toString(), "--out", dir + "/o2/../o2", "--results", log.toString()));
    }
}
