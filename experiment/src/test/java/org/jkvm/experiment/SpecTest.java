package org.jkvm.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.ExperimentSpec.Workload;
import org.jkvm.pvlock.PvLockMode;
import org.jkvm.vmm.config.CpuOptions;
import org.jkvm.vmm.config.CpuSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The experiment spec: a good one read in full, and each kind of mistake reported with its line and column. */
@Tag("unit")
class SpecTest {
    static final Path DIR = Path.of("/specs");

    static String resource(String name) throws IOException {
        try (InputStream in = SpecTest.class.getResourceAsStream("/experiment/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    static ExperimentSpec good() throws IOException {
        return ExperimentSpec.parse(resource("good.json"), DIR.resolve("good.json"), false, Map.of());
    }

    /** The errors of a spec, as "line:col field: message" strings (file name left out). */
    static List<String> errors(String text) {
        SpecException e = assertThrows(SpecException.class,
                () -> ExperimentSpec.parse(text, Path.of("t.json"), false, Map.of()));
        return e.errors().stream().map(x -> x.line() + ":" + x.col() + " " + x.field() + ": " + x.message()).toList();
    }

    static String minimal(String extraTop, String variantExtra) {
        return """
                {
                  "name": "m",
                  "guest": { "kernel": "Image", "initrd": "initrd" },
                  "vcpus": 2,
                  "pin": "0",
                  "workloads": [ { "name": "cpu", "workers": 1, "seconds": 1 } ],
                  "variants": [ { "name": "a", "pvlock": "off"%s }, { "name": "b", "pvlock": "auto" } ],
                  "repetitions": 2%s
                }
                """.formatted(variantExtra, extraTop);
    }

    @Test
    void goodSpecIsReadInFull() throws IOException {
        ExperimentSpec s = good();
        assertEquals("small", s.name());
        assertEquals(DIR.resolve("Image"), s.guest().kernel());
        assertEquals(DIR.resolve("sub/initrd.gz"), s.guest().initrd());
        assertEquals("quiet", s.guest().cmdline());
        assertEquals(4, s.vcpus());
        assertEquals(1L << 30, s.memory());
        assertEquals("1G", s.memoryText());
        assertEquals("0-1", s.pin());
        assertEquals(2, s.vms());
        assertEquals(List.of(new Workload("hackbench", "hackbench", 8, 5, false),
                new Workload("hackbench", "hackbench-32", 32, 5, false), new Workload("cpu", "cpu", 4, 3, false)), s.workloads());
        assertEquals(List.of("pv-user", "pv-off", "new-kernel", "ref"), s.variants().stream().map(Variant::name).toList());
        assertEquals("pv-off", s.base());
        assertEquals("ref", s.reference());
        assertEquals(3, s.repetitions());
        assertEquals(1, s.warmup());

        Variant user = s.variant("pv-user");
        assertEquals(PvLockMode.USERSPACE, user.pvlock());
        assertTrue(user.stealTime());
        assertFalse(s.variant("pv-off").stealTime());
        Variant nk = s.variant("new-kernel");
        assertEquals(PvLockMode.KERNEL, nk.pvlock());
        assertEquals(Path.of("/abs/Image-6.15"), s.kernel(nk));
        assertEquals(DIR.resolve("Image"), s.kernel(user));
        assertEquals("kvm-arm.wfe_trap_policy=notrap", nk.hostKernelArgs());
        assertNull(user.hostKernelArgs());

        // 4 vCPUs x 2 VMs on 2 CPUs; the reference: 2 vCPUs x 2 VMs on CPUs "0,1" (normalised to 0-1)
        assertEquals(4.0, s.overcommit(user));
        Variant ref = s.referenceVariant().orElseThrow();
        assertEquals(2, s.vcpus(ref));
        assertEquals("0-1", s.pin(ref));
        assertEquals(2.0, s.overcommit(ref));

        Workload hb = s.workload("hackbench-32");
        assertEquals("jkvm.workload=hackbench jkvm.workers=32 jkvm.seconds=5", hb.guestArgs());
        assertEquals("quiet jkvm.workload=hackbench jkvm.workers=32 jkvm.seconds=5", s.cmdline(user, hb));
        assertEquals(Duration.ofSeconds(60), s.timeout(hb));
        assertEquals(4 * 3 * 4, s.runCount());
    }

    @Test
    void defaultsBaseIsTheFirstVariantAndOptionalFieldsDefault() {
        ExperimentSpec s = ExperimentSpec.parse(minimal("", ""), Path.of("m.json"), false, Map.of());
        assertEquals("a", s.base());
        assertNull(s.reference());
        assertTrue(s.referenceVariant().isEmpty());
        assertEquals(1, s.vms());
        assertEquals(0, s.warmup());
        assertEquals(512L << 20, s.memory());
        assertEquals("", s.guest().cmdline());
        assertEquals(PvLockMode.AUTO, s.variant("b").pvlock());
        assertFalse(s.variant("a").pmu(), "no guest PMU unless a variant asks for one");
        assertEquals(Duration.ofSeconds(1 + ExperimentSpec.TIMEOUT_SLACK_SECONDS), s.timeout(s.workloads().getFirst()));
    }

    @Test
    void everyMistakeIsReportedWithItsLineAndColumn() throws IOException {
        SpecException e = assertThrows(SpecException.class,
                () -> ExperimentSpec.parse(resource("bad.json"), Path.of("bad.json"), false, Map.of()));
        List<String> got = e.errors().stream().map(SpecError::toString).toList();
        List<String> want = List.of(
                "bad.json:2:11: name: \"bad one\" is not a usable name: letters, digits and . _ + - only, starting with a letter or digit (names become part of run ids)",
                "bad.json:3:12: guest.initrd: missing; this object needs it",
                "bad.json:4:12: vcpus: must be a positive whole number, not 0",
                "bad.json:5:13: memory: \"lots\" is not a memory size; write e.g. \"512M\" or \"2G\"",
                "bad.json:6:10: pin: \"1-0\" is not a host CPU list; write e.g. \"0\", \"0-3\" or \"0,2,4-7\"",
                "bad.json:7:3: colour: unknown field; the spec takes name, guest, vcpus, memory, pin, vmm_pin, vms, workloads, variants, reference, repetitions, warmup, timeout, preemptors",
                "bad.json:9:15: workloads[0].name: \"dhrystone\" is not one of fork-exec, hackbench, mmap-shared, mmap-private-mm, file-shared, file-private, cpu, syscall, "
                        + "shell-dyn, execl, spawn, pipe-ctxsw",
                "bad.json:9:53: workloads[0].seconds: must be a positive whole number, not 1.5",
                "bad.json:10:33: workloads[1].workers: must be a positive whole number, not \"4\"",
                "bad.json:14:30: variants[1].pvlock: \"fast\" is not one of off, userspace, kernel, auto, track-only",
                "bad.json:14:52: variants[1].steal_time: \"maybe\" is not one of on, off",
                "bad.json:15:15: variants[2].name: \"a\" is already the name of an earlier variant (line 13)",
                "bad.json:15:48: variants[2].base: only one variant can be the base; \"a\" already is (line 13)",
                "bad.json:17:16: reference: \"nope\" names no variant; variants: a, b",
                "bad.json:18:18: repetitions: must be a positive whole number, not -1");
        assertEquals(want, got);
        assertEquals(String.join("\n", want), e.getMessage());
        assertTrue(e instanceof IllegalArgumentException, "jkvm's error handler exits 2 for these");
    }

    @Test
    void syntaxErrorsPointAtTheCharacter() {
        assertEquals(List.of("3:3 : bad JSON: Unexpected character ('}' (code 125)): was expecting double-quote to start property name"),
                errors("{\n  \"name\": \"x\",\n  }\n"));
        assertEquals(List.of("1:10 : bad JSON: unterminated string"), errors("{\"name\": \"x"));
        assertEquals(List.of("2:1 : bad JSON: field \"name\" appears twice in this object"),
                errors("{\"name\": \"x\",\n\"name\": \"y\"}"));
        assertEquals(List.of("1:12 : bad JSON: Unrecognized token 'x': was expecting (JSON String, Number, Array, Object or token"
                + " 'null', 'true' or 'false')"), errors("{\"vcpus\": 1x}".replace("1x", " x")));
        assertEquals(List.of("1:4 : bad JSON: unexpected '{' after the end of the document"), errors("{} {}"));
        assertEquals(List.of("1:1 : expected an object {...}, found a list"), errors("[]"));
    }

    @Test
    void missingRequiredFieldsPointAtTheirObject() {
        List<String> e = errors("{\n  \"name\": \"x\"\n}");
        assertEquals(List.of(
                "1:1 guest: missing; this object needs it",
                "1:1 vcpus: missing; this object needs it",
                "1:1 pin: missing; this object needs it",
                "1:1 workloads: missing; this object needs it",
                "1:1 variants: missing; this object needs it",
                "1:1 repetitions: missing; this object needs it"), e);
        assertEquals(List.of("6:18 workloads[0].seconds: missing; this object needs it"),
                errors(minimal("", "").replace(", \"seconds\": 1 }", " }")));
    }

    @Test
    void aPathNoFileSystemTakesIsASpecError() {
        // found by SpecReaderFuzzTest: these threw InvalidPathException instead
        assertEquals(List.of("3:24 guest.kernel: not a usable path (Nul character not allowed)"),
                errors(minimal("", "").replace("\"Image\"", "\"a\\u0000b\"")));
        assertEquals(1, errors(minimal("", "").replace("\"initrd\" }", "\"\\ud800\" }")).size());
    }

    @Test
    void aVariantCanGiveTheGuestAPmu() {
        ExperimentSpec s = ExperimentSpec.parse(minimal("", ", \"pmu\": \"on\""), Path.of("m.json"), false, Map.of());
        assertTrue(s.variant("a").pmu());
        assertFalse(s.variant("b").pmu());
        assertTrue(ExperimentSpec.parse(minimal("", ", \"pmu\": true"), Path.of("m.json"), false, Map.of()).variant("a").pmu());
        assertEquals(List.of("7:56 variants[0].pmu: \"yes\" is not one of on, off"), errors(minimal("", ", \"pmu\": \"yes\"")));
    }

    @Test
    void aSpecCanAskEveryRunWhoItsVcpusWaitedBehind() {
        assertFalse(ExperimentSpec.parse(minimal("", ""), Path.of("m.json"), false, Map.of()).preemptors(), "off unless asked");
        assertTrue(ExperimentSpec.parse(minimal(", \"preemptors\": \"on\"", ""), Path.of("m.json"), false, Map.of()).preemptors());
        assertEquals(List.of("8:35 preemptors: \"all\" is not one of on, off"), errors(minimal(", \"preemptors\": \"all\"", "")));
    }

    @Test
    void aVariantCanTakePointerAuthAndSveAwayFromItsVcpus() {
        ExperimentSpec s = ExperimentSpec.parse(minimal("", ", \"ptrauth\": \"off\", \"sve\": false"), Path.of("m.json"), false, Map.of());
        assertEquals(new CpuOptions(false, false), s.variant("a").cpu());
        assertEquals(", no pointer auth, no SVE", s.variant("a").cpuText());
        assertEquals(CpuOptions.DEFAULT, s.variant("b").cpu(), "every feature the host offers unless a variant says off");
        assertEquals("", s.variant("b").cpuText());
        assertEquals(List.of("7:56 variants[0].sve: \"128\" is not one of on, off"), errors(minimal("", ", \"sve\": \"128\"")));
    }

    @Test
    void aVariantAddsGuestArgumentsBetweenTheSpecsAndTheWorkloads() {
        ExperimentSpec s = ExperimentSpec.parse(minimal("", ", \"cmdline\": \" nopvlock \""), Path.of("m.json"), false, Map.of());
        Workload cpu = s.workload("cpu");
        assertEquals("nopvlock jkvm.workload=cpu jkvm.workers=1 jkvm.seconds=1", s.cmdline(s.variant("a"), cpu));
        assertEquals("jkvm.workload=cpu jkvm.workers=1 jkvm.seconds=1", s.cmdline(s.variant("b"), cpu));
        assertEquals(ExperimentSpec.JKVM_CMDLINE + " nopvlock jkvm.workload=cpu jkvm.workers=1 jkvm.seconds=1",
                s.kernelCmdline(s.variant("a"), cpu));
        assertEquals(List.of("7:60 variants[0].cmdline: jkvm.workload= and friends come from the workloads list; take them out here"),
                errors(minimal("", ", \"cmdline\": \"jkvm.workload=cpu\"")));
    }

    @Test
    void aVariantOrAWorkloadIsProfiledOnlyWhenItSaysSo() {
        ExperimentSpec off = ExperimentSpec.parse(minimal("", ""), Path.of("m.json"), false, Map.of());
        assertTrue(RunMatrix.of(off).runs().stream().noneMatch(off::profiled), "throughput runs are not profiled by default");
        ExperimentSpec variant = ExperimentSpec.parse(minimal("", ", \"profile\": \"on\""), Path.of("m.json"), false, Map.of());
        assertEquals(List.of("a"), RunMatrix.of(variant).runs().stream().filter(variant::profiled).map(r -> r.variant().name())
                .distinct().toList());
        ExperimentSpec workload = ExperimentSpec.parse(minimal("", "").replace("\"seconds\": 1 }", "\"seconds\": 1, \"profile\": true }"),
                Path.of("m.json"), false, Map.of());
        assertTrue(RunMatrix.of(workload).runs().stream().allMatch(workload::profiled));
        ExperimentSpec own = ExperimentSpec.parse(minimal("", ", \"kernel\": \"/g/Image\""), Path.of("m.json"), false, Map.of());
        assertEquals(Path.of("/g/System.map"), own.systemMap(own.variant("a")), "the symbols beside the variant's kernel");
        assertEquals(Path.of("System.map").toAbsolutePath(), own.systemMap(own.variant("b")).toAbsolutePath());
        assertEquals(List.of("7:60 variants[0].profile: \"yes\" is not one of on, off"), errors(minimal("", ", \"profile\": \"yes\"")));
    }

    @Test
    void aTrackerBatchPeriodIsReadForTheModesThatTrackAndRefusedForTheOthers() {
        String text = minimal("", "").replace("\"pvlock\": \"auto\"", "\"pvlock\": \"track-only\", \"pvlock_batch\": 4");
        ExperimentSpec s = ExperimentSpec.parse(text, Path.of("t.json"), false, Map.of());
        assertEquals(4, s.variant("b").pvlockBatch());
        assertEquals(0, s.variant("a").pvlockBatch(), "none unless the spec says");
        assertEquals(List.of("7:65 variants[0].pvlock_batch: paces the userspace tracker, which pvlock \"off\" does not run;"
                + " use it with userspace, track-only or auto, or remove it"), errors(minimal("", ", \"pvlock_batch\": 4")));
        assertEquals(List.of("7:65 variants[0].pvlock_batch: 101 is too large (at most 100)"),
                errors(minimal("", ", \"pvlock_batch\": 101")));
        assertEquals(List.of("7:65 variants[0].pvlock_batch: must be a whole number of milliseconds, 0 or more, not \"4ms\""),
                errors(minimal("", ", \"pvlock_batch\": \"4ms\"")));
    }

    @Test
    void unknownFieldsInVariantsAreErrors() {
        assertEquals(List.of("7:49 variants[0].pv_lock: unknown field; variants[0] takes name, base, pvlock, pvlock_batch, steal_time, pmu, ptrauth, sve, kernel, host_kernel_args, vcpus, pin, vmm_pin, cmdline, profile"),
                errors(minimal("", ", \"pv_lock\": \"off\"")));
    }

    @Test
    void referenceMustNotBeTheBase() {
        assertEquals(List.of("8:34 reference: \"a\" is the base variant; the reference is the no-overcommit run the base is measured against"),
                errors(minimal(", \"reference\": \"a\"", "")));
    }

    @Test
    void emptyListsAndDuplicateWorkloadsAreErrors() {
        String s = minimal("", "").replace("[ { \"name\": \"cpu\", \"workers\": 1, \"seconds\": 1 } ]", "[]");
        assertEquals(List.of("6:16 workloads: the list is empty; name at least one workload"), errors(s));
        String dup = minimal("", "").replace("[ { \"name\": \"cpu\", \"workers\": 1, \"seconds\": 1 } ]",
                "[ { \"name\": \"cpu\", \"workers\": 1, \"seconds\": 1 }, { \"name\": \"cpu\", \"workers\": 2, \"seconds\": 1 } ]");
        List<String> e = errors(dup);
        assertEquals(1, e.size());
        assertTrue(e.getFirst().startsWith("6:75 workloads[1].name: \"cpu\" is used by an earlier workload (line 6)"), e.getFirst());
    }

    @Test
    void pathsExpandEnvironmentVariablesAndCanBeRequiredToExist(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("Image"), "k");
        String text = minimal("", "").replace("\"kernel\": \"Image\"", "\"kernel\": \"${IMG}\"");
        Path spec = dir.resolve("s.json");
        ExperimentSpec s = ExperimentSpec.parse(text, spec, false, Map.of("IMG", dir.resolve("Image").toString()));
        assertEquals(dir.resolve("Image"), s.guest().kernel());
        // not required: an unset variable stays as written
        ExperimentSpec u = ExperimentSpec.parse(text, spec, false, Map.of());
        assertEquals(dir.resolve("${IMG}"), u.guest().kernel());
        // required: the initrd is missing, and an unset variable is an error
        SpecException e = assertThrows(SpecException.class,
                () -> ExperimentSpec.parse(text, spec, true, Map.of("IMG", dir.resolve("Image").toString())));
        assertEquals(List.of(spec + ":3:44: guest.initrd: no such file: " + dir.resolve("initrd")
                + " (relative paths start at the spec's folder)"), e.errors().stream().map(SpecError::toString).toList());
        SpecException e2 = assertThrows(SpecException.class, () -> ExperimentSpec.parse(text, spec, true, Map.of()));
        assertEquals(spec + ":3:24: guest.kernel: the environment variable IMG is not set", e2.errors().getFirst().toString());
    }

    @Test
    void theExampleSpecIsValid() throws IOException {
        Path example = Path.of(System.getProperty("user.dir")).resolve("../examples/overcommit.json").normalize();
        ExperimentSpec s = ExperimentSpec.load(example);
        assertEquals("pv-off", s.base());
        assertEquals("no-overcommit", s.reference());
        assertEquals(4.0, s.overcommit(s.baseVariant()));
        assertEquals(1.0, s.overcommit(s.referenceVariant().orElseThrow()));
    }

    @Test
    void vmSettingsARunWouldRefuseAreRefusedWhereTheSpecSetsThem() {
        // jkvm's own VmConfig checks, each placed at the field the value comes from
        assertEquals(List.of("9:13 memory: 32M: give at least 64M"), errors(minimal(",\n  \"memory\": \"32M\"", "")));
        assertEquals(List.of("9:13 memory: 100000000 bytes: give a whole number of MiB, e.g. 512M"),
                errors(minimal(",\n  \"memory\": 100000000", "")));
        assertEquals(List.of("4:12 vcpus: 600: jkvm's arm64 machine has room for at most 512 vCPUs (GICv3 redistributors)"),
                errors(minimal("", "").replace("\"vcpus\": 2", "\"vcpus\": 600")));
        assertEquals(List.of("7:58 variants[0].vcpus: 513: jkvm's arm64 machine has room for at most 512 vCPUs (GICv3 redistributors)"),
                errors(minimal("", ", \"vcpus\": 513")));
        String longArgs = minimal("", "").replace("\"initrd\": \"initrd\" }", "\"initrd\": \"initrd\", \"cmdline\": \"" + "x".repeat(2000) + "\" }");
        assertEquals(List.of("3:64 guest.cmdline: the command line with jkvm's and workload cpu's arguments is 2077 bytes:"
                + " arm64 Linux keeps at most 2047 bytes of command line (COMMAND_LINE_SIZE)"), errors(longArgs));
    }

    @Test
    void aRunCountThatOverflowsIsRefusedWithTheNumbers() {
        StringBuilder workloads = new StringBuilder();
        StringBuilder variants = new StringBuilder();
        for (int i = 0; i < 104; i++) {
            workloads.append(i == 0 ? "" : ", ").append("{ \"name\": \"cpu\", \"label\": \"w").append(i)
                    .append("\", \"workers\": 1, \"seconds\": 1 }");
            variants.append(i == 0 ? "" : ", ").append("{ \"name\": \"v").append(i).append("\", \"pvlock\": \"off\" }");
        }
        String text = """
                { "name": "big", "vcpus": 1, "pin": "0",
                  "repetitions": 100000, "warmup": 100000,
                  "guest": { "kernel": "Image", "initrd": "initrd" },
                  "workloads": [ %s ],
                  "variants": [ %s ] }
                """.formatted(workloads, variants);
        assertEquals(List.of("2:18 repetitions: 104 variants x 104 workloads x (100000 + 100000 warm-up) = 2163200000 runs;"
                + " a spec may ask for at most 1000000"), errors(text));
    }

    @Test
    void withFilesRequiredTheKernelMustBeAnArm64ImageThatFits(@TempDir Path dir) throws IOException {
        Path spec = dir.resolve("s.json");
        Files.write(dir.resolve("initrd"), new byte[] {1});
        Path kernel = Files.writeString(dir.resolve("Image"), "#!/bin/sh\necho this is no kernel\n".repeat(4));
        String text = minimal(",\n  \"memory\": \"64M\"", "");
        List<String> notImage = requiringFiles(text, spec);
        assertEquals(1, notImage.size(), notImage.toString());
        assertTrue(notImage.getFirst().startsWith(spec + ":3:24: guest.kernel: kernel image " + kernel + ": not an arm64 Image"),
                notImage.getFirst());
        // without --files the kernel is not read
        assertEquals(dir.resolve("Image"), ExperimentSpec.parse(text, spec, false, Map.of()).guest().kernel());

        Files.write(kernel, arm64Image(100L << 20));
        List<String> e = requiringFiles(text, spec);
        assertEquals(1, e.size(), e.toString());
        assertTrue(e.getFirst().startsWith(spec + ":3:24: guest.kernel: kernel image " + kernel + ": needs 100 MiB of guest RAM"), e.getFirst());

        Files.write(kernel, arm64Image(4L << 20));
        try (RandomAccessFile big = new RandomAccessFile(dir.resolve("initrd").toFile(), "rw")) {
            big.setLength(70L << 20);   // sparse: only its size is read
        }
        assertEquals(List.of(spec + ":9:13: memory: 64M: the kernel (4M in memory), the initrd (70M) and the device tree need"
                + " more: give 140M or more"), requiringFiles(text, spec));
        Files.write(dir.resolve("initrd"), new byte[] {1});
        assertEquals(kernel, ExperimentSpec.parse(text, spec, true, Map.of()).guest().kernel());
    }

    static List<String> requiringFiles(String text, Path spec) {
        SpecException e = assertThrows(SpecException.class, () -> ExperimentSpec.parse(text, spec, true, Map.of()));
        return e.errors().stream().map(SpecError::toString).toList();
    }

    /** The 64-byte header of a little-endian arm64 Image that needs {@code imageSize} bytes from its load address. */
    static byte[] arm64Image(long imageSize) {
        ByteBuffer b = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(16, imageSize).putLong(24, 0xa).putInt(56, 0x644d5241);
        return b.array();
    }

    @Test
    void vmmPinIsReadAndSharesNoCpuWithAnyVariantsVcpus() {
        assertEquals("1-3", ExperimentSpec.parse(minimal(", \"vmm_pin\": \"1,2-3\"", ""), Path.of("t.json"), false, Map.of()).vmmPin());
        assertNull(ExperimentSpec.parse(minimal("", ""), Path.of("t.json"), false, Map.of()).vmmPin());
        assertEquals(List.of("8:32 vmm_pin: 0-1: shares CPU 0 with pin 0: give the rest of jkvm CPUs outside pin,"
                + " or give variants[0] \"vmm_pin\": \"none\""), errors(minimal(", \"vmm_pin\": \"0-1\"", "")));
        assertEquals(List.of("8:32 vmm_pin: 1-2: shares CPU 2 with variants[0].pin 2-3: give the rest of jkvm CPUs outside variants[0].pin,"
                + " or give variants[0] \"vmm_pin\": \"none\""),
                errors(minimal(", \"vmm_pin\": \"1-2\"", ", \"pin\": \"2-3\"")));
        assertEquals(List.of("8:32 vmm_pin: 1-3: shares CPUs 1-2 with variants[1].pin 0-2: give the rest of jkvm CPUs outside variants[1].pin,"
                + " or give variants[1] \"vmm_pin\": \"none\""),
                errors(minimal(", \"vmm_pin\": \"1-3\"", "").replace("\"pvlock\": \"auto\"", "\"pvlock\": \"auto\", \"pin\": \"0-2\"")));
        assertEquals(List.of("8:32 vmm_pin: \"x\" is not a host CPU list; write e.g. \"0\", \"0-3\" or \"0,2,4-7\""),
                errors(minimal(", \"vmm_pin\": \"x\"", "")));
        assertEquals("1", ExperimentSpec.parse(minimal(", \"vmm_pin\": 1", ""), Path.of("t.json"), false, Map.of()).vmmPin(),
                "a CPU number as a JSON number, as pin takes it");
    }

    @Test
    void aVariantSetsItsOwnVmmPinOrNone() {
        ExperimentSpec s = ExperimentSpec.parse(minimal(", \"vmm_pin\": \"1\"", ", \"pin\": \"0-1\", \"vmm_pin\": \"none\""),
                Path.of("t.json"), false, Map.of());
        assertNull(s.vmmPin(s.variant("a")), "the reference on every CPU leaves the rest of jkvm unpinned");
        assertEquals("1", s.vmmPin(s.variant("b")), "the spec's");
        assertEquals(Map.of("pin", "0-1"), s.placement(s.variant("a")));
        assertEquals(Map.of("pin", "0", "vmm_pin", "1"), s.placement(s.variant("b")));
        assertTrue(s.placesVmm());
        ExperimentSpec own = ExperimentSpec.parse(minimal("", ", \"vmm_pin\": \"3,2\""), Path.of("t.json"), false, Map.of());
        assertEquals("2-3", own.vmmPin(own.variant("a")));
        assertNull(own.vmmPin(own.variant("b")));
        assertFalse(ExperimentSpec.parse(minimal("", ""), Path.of("t.json"), false, Map.of()).placesVmm());
        assertFalse(ExperimentSpec.parse(minimal("", ", \"vmm_pin\": \"none\""), Path.of("t.json"), false, Map.of()).placesVmm());
    }

    @Test
    void aVariantsOwnVmmPinIsCheckedAtItsField() {
        assertEquals(List.of("7:60 variants[0].vmm_pin: 0: shares CPU 0 with pin 0: give the rest of jkvm CPUs outside pin"),
                errors(minimal(", \"vmm_pin\": \"1\"", ", \"vmm_pin\": \"0\"")));
        assertEquals(List.of("7:60 variants[0].vmm_pin: \"all\" is not a host CPU list; write e.g. \"0\", \"0-3\" or \"0,2,4-7\","
                + " or \"none\" to leave the rest of jkvm unpinned"), errors(minimal("", ", \"vmm_pin\": \"all\"")));
        ExperimentSpec s = ExperimentSpec.parse(minimal("", ", \"vmm_pin\": \"2-3\""), Path.of("t.json"), false, Map.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.checkPins(CpuSet.parse("0-2")));
        assertEquals("t.json: variants[0].vmm_pin 2-3: this process may run on CPUs 0-2 only; 3 is not among them", e.getMessage());
    }

    @Test
    void vmmPinIsCheckedAgainstTheCpusThisProcessMayUse() {
        ExperimentSpec s = ExperimentSpec.parse(minimal(", \"vmm_pin\": \"2-3\"", ""), Path.of("t.json"), false, Map.of());
        assertDoesNotThrow(() -> s.checkPins(CpuSet.parse("0-3")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.checkPins(CpuSet.parse("0-2")));
        assertEquals("t.json: vmm_pin 2-3: this process may run on CPUs 0-2 only; 3 is not among them", e.getMessage());
    }

    @Test
    void pinSetsAreCheckedAgainstTheCpusThisProcessMayUse() {
        ExperimentSpec s = ExperimentSpec.parse(minimal("", ", \"pin\": \"0-3\""), Path.of("t.json"), false, Map.of());
        assertDoesNotThrow(() -> s.checkPins(CpuSet.parse("0-3")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.checkPins(CpuSet.parse("0-1")));
        assertEquals("t.json: variant a: pin 0-3: this process may run on CPUs 0-1 only; 2-3 are not among them", e.getMessage());
    }
}
