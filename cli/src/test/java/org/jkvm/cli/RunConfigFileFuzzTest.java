package org.jkvm.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import org.jkvm.vmm.config.SettingException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Any bytes as the file of {@code jkvm run --config FILE}, through picocli's parse of the run
 * command and the options' converters to the VM's settings: a {@link ParameterException} (what
 * picocli reports as a bad command line) or a {@link SettingException}, each with a message, or
 * settings. Input: the file's bytes; its seeds name {@code /proc/self/exe}, a regular file on any
 * Linux, as the kernel, so that the checks after the kernel's are reached. The dictionary adds
 * the file syntax's escapes and numbers at the limits.
 */
@Tag("unit")
@Tag("fuzz")
class RunConfigFileFuzzTest {
    @TempDir
    static Path dir;

    @DictionaryEntries({"\\u", "\\u0000", "9223372036854775807", "2147483648", "8191", "8192", "17592186044416T",
        "steal-time=off", "/proc/self/exe"})
    @FuzzTest(maxDuration = "30s")
    void parse(byte[] data) throws IOException {
        Path file = dir.resolve("vm.conf");
        Files.write(file, data);
        CommandSpec spec = RunCommand.spec();
        RunCommand run = (RunCommand) spec.userObject();
        try {
            new CommandLine(spec).parseArgs("--config", file.toString());
        } catch (ParameterException e) {
            assertFalse(e.getMessage() == null || e.getMessage().isBlank(), "a refusal without a message");
            return;
        }
        try {
            run.config();
        } catch (SettingException e) {
            assertFalse(e.getMessage().isBlank(), "a refusal without a message");
        }
    }
}
