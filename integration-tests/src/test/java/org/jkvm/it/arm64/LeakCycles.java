package org.jkvm.it.arm64;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntFunction;

import org.jkvm.kvm.Capability;
import org.jkvm.kvm.Kvm;
import org.jkvm.pvlock.PvLockDevice;
import org.jkvm.pvlock.PvLockMode;
import org.jkvm.vmm.VmOutcome;
import org.jkvm.vmm.config.PvOptions;
import org.jkvm.vmm.config.VmConfig;
import org.jkvm.vmm.launch.Launch;
import org.jkvm.vmm.launch.RunReport;
import org.jkvm.vmm.memory.MemoryRegion;

/**
 * A main class run inside the emulated arm64 host next to jkvm.jar ({@link Arm64LeakTest} ships
 * it): boots the hostile guest's calm mode through the core's launch facade with the PV-lock
 * device, {@code CYCLES} times in this one JVM (1 and 2 vCPUs, PV lock userspace, off and auto
 * in turn), then fails {@code FAILS} starts of each kind a start can fail, and prints the
 * process's descriptors, mappings and threads before and after as {@code LEAK} lines.
 *
 * <p>Usage: {@code java --enable-native-access=ALL-UNNAMED -cp jkvm.jar:leak.jar
 * org.jkvm.it.arm64.LeakCycles IMAGE CYCLES FAILS}
 */
public final class LeakCycles {
    /** Cycles before the first snapshot: classes loaded, JIT warm, malloc arenas and pools made. */
    private static final int WARM_UP = 10;
    private static final long MEMORY = 64L << 20;
    private static final PvLockMode[] MODES = {PvLockMode.USERSPACE, PvLockMode.OFF, PvLockMode.AUTO};
    /** Where each cycle's guest memory (RAM, PV regions) was mapped, as maps prints it: "start-end". */
    private static final Set<String> guestMappings = new TreeSet<>();

    private LeakCycles() {}

    public static void main(String[] args) throws Exception {
        Path image = Path.of(args[0]);
        int cycles = Integer.parseInt(args[1]);
        int fails = Integer.parseInt(args[2]);
        Path dir = Files.createTempDirectory("leak-cycles");
        Path bad = dir.resolve("random.img");
        byte[] noise = new byte[64 << 10];
        new Random(1).nextBytes(noise);
        Files.write(bad, noise);
        Path big = dir.resolve("big.cpio");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(62L << 20); // with the kernel and the 2 MiB device tree, more than 64 MiB of RAM holds
        }
        int maxVcpus;
        try (Kvm kvm = Kvm.open()) {
            maxVcpus = kvm.check(Capability.MAX_VCPUS);
        }

        for (int i = 0; i < WARM_UP; i++) boot(image, i);
        ProcessResources before = ProcessResources.take();
        say("before " + before.summary());
        long t0 = System.nanoTime();
        int booted = 0;
        for (int i = 0; i < cycles; i++) {
            if (boot(image, i)) booted++;
            if ((i + 1) % 50 == 0) {
                say("cycle=" + (i + 1) + " " + ProcessResources.take().summary() + " ms_per_cycle="
                        + (System.nanoTime() - t0) / 1_000_000 / (i + 1));
            }
        }
        say("cycles=" + cycles + " powered_off=" + booted);

        Map<String, IntFunction<VmConfig>> refusals = new LinkedHashMap<>();
        refusals.put("bad_image", i -> config(bad, null, 1, MEMORY));
        refusals.put("too_little_memory", i -> config(image, big, 1, MEMORY));
        refusals.put("too_many_vcpus", i -> config(image, null, maxVcpus + 1, MEMORY));
        refusals.put("ram_past_ipa_space", i -> config(image, null, 1, 1L << 40));
        for (Map.Entry<String, IntFunction<VmConfig>> r : refusals.entrySet()) {
            refuse(r.getKey(), fails, r.getValue(), PvLockMode.AUTO);
        }
        refuse("pvlock_kernel_on_stock_kernel", fails, i -> config(image, null, 1 + i % 2, MEMORY), PvLockMode.KERNEL);

        ProcessResources after = ProcessResources.take();
        say("after " + after.summary());
        say("guest_mappings recorded=" + guestMappings.size() + " left=" + after.maps().stream()
                .filter(l -> guestMappings.contains(l.substring(0, l.indexOf(' ')))).count());
        for (String d : before.differences(after)) say("difference " + d);
        say("done");
    }

    private static VmConfig config(Path kernel, Path initrd, int cpus, long memory) {
        return new VmConfig(kernel, initrd, "hostile.mode=calm", cpus, memory, null, PvOptions.DEFAULT,
                false, Duration.ofSeconds(120));
    }

    /** One create/run/destroy cycle; false (and a line saying why) unless the guest powered off. */
    private static boolean boot(Path image, int i) throws IOException, InterruptedException {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        PvLockMode mode = MODES[i % MODES.length];
        try (Kvm kvm = Kvm.open();
             Launch launch = Launch.prepare(kvm, config(image, null, 1 + i % 2, MEMORY), console,
                     List.of(PvLockDevice.attaching(mode)))) {
            for (MemoryRegion m : launch.vm().memory().regions()) {
                long at = m.host().segment().address();
                guestMappings.add(Long.toHexString(at) + "-" + Long.toHexString(at + m.size()));
            }
            RunReport r = launch.run();
            String out = console.toString(StandardCharsets.UTF_8);
            if (r.outcome() instanceof VmOutcome.PowerOff && out.contains("HOSTILE done mode=calm")) return true;
            say("cycle " + i + " (" + mode + "): " + r.outcome() + "; console: " + out.strip());
            return false;
        }
    }

    /** {@code times} starts that must fail; a line with how many did and the first message. */
    private static void refuse(String kind, int times, IntFunction<VmConfig> config, PvLockMode mode)
            throws IOException {
        int refused = 0;
        String first = null;
        for (int i = 0; i < times; i++) {
            try (Kvm kvm = Kvm.open();
                 Launch launch = Launch.prepare(kvm, config.apply(i), new ByteArrayOutputStream(),
                         List.of(PvLockDevice.attaching(mode)))) {
                say("refused " + kind + " started a VM: " + launch.vm().config());
            } catch (RuntimeException e) {
                refused++;
                if (first == null) first = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
        }
        say("refused " + kind + " " + refused + "/" + times + " first: " + first);
    }

    private static void say(String line) {
        System.out.println("LEAK " + line);
        System.out.flush();
    }
}
