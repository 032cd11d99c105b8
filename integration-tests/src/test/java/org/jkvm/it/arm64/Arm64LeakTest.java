package org.jkvm.it.arm64;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Leaks on arm64: {@link LeakCycles} inside the emulated host boots and destroys 200 small VMs
 * (the hostile guest's calm mode, through the launch facade with the PV-lock device) in one
 * JVM and fails starts of every kind (a file that is no Image, an initrd that leaves no room in
 * RAM, more vCPUs than KVM allows, RAM past the VM's IPA space, PV-lock kernel mode on a stock
 * kernel); the process then holds the same descriptors and threads as before and none of the
 * guests' mappings. The host's output is kept in target/Arm64LeakTest.out.
 */
@Tag("arm64")
class Arm64LeakTest {
    private static final int CYCLES = 200;
    private static final int FAILS = 10;
    /**
     * Lines of /proc/self/maps the JVM itself may add or drop between two snapshots: its heap,
     * metaspace, code cache and malloc arenas are anonymous mappings that split and merge as it
     * commits and uncommits memory. What jkvm maps (guest memory, kvm_run) is checked exactly.
     */
    private static final int JVM_MAPS_TOLERANCE = 8;

    @Test
    void twoHundredVmsAndFailedStartsLeaveDescriptorsMappingsAndThreadsAsTheyWere(@TempDir Path tmp) throws Exception {
        EmulatedArm64Host.requireOrSkip();
        Path image = Path.of(BuildScript.output("guest/hostile/build", "JKVM_HOSTILE"));
        Path jar = TestClassesJar.of(tmp.resolve("leak.jar"), LeakCycles.class, ProcessResources.class);
        String cmd = "java --enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -cp jkvm.jar:leak.jar "
                + LeakCycles.class.getName() + " hostile.img " + CYCLES + " " + FAILS;
        EmulatedArm64Host.Result r = EmulatedArm64Host.run("", Duration.ofMinutes(40), cmd, List.of(image, jar));
        String out = r.output();
        Files.writeString(Path.of("target", getClass().getSimpleName() + ".out"), out);
        assertEquals(0, r.exitCode(), out);
        assertTrue(out.contains("LEAK done"), out);
        assertTrue(out.contains("LEAK cycles=" + CYCLES + " powered_off=" + CYCLES), out);
        for (String kind : List.of("bad_image", "too_little_memory", "too_many_vcpus", "ram_past_ipa_space",
                "pvlock_kernel_on_stock_kernel")) {
            assertTrue(out.contains("LEAK refused " + kind + " " + FAILS + "/" + FAILS), kind + ":\n" + out);
        }
        int[] before = figures(out, "before");
        int[] after = figures(out, "after");
        assertEquals(before[0], after[0], "open descriptors:\n" + out);
        assertEquals(before[2], after[2], "kvm mappings:\n" + out);
        assertEquals(before[3], after[3], "threads:\n" + out);
        assertTrue(Math.abs(after[1] - before[1]) <= JVM_MAPS_TOLERANCE, "mappings:\n" + out);
        assertFalse(out.contains("LEAK difference"), "descriptors, threads or kvm mappings differ:\n" + out);
        Matcher g = Pattern.compile("LEAK guest_mappings recorded=(\\d+) left=(\\d+)").matcher(out);
        assertTrue(g.find(), out);
        assertTrue(Integer.parseInt(g.group(1)) > 0, out);
        assertEquals(0, Integer.parseInt(g.group(2)), "guest memory still mapped:\n" + out);
    }

    /** fds, maps, kvm_maps, threads of the {@code LEAK <which>} line. */
    private static int[] figures(String out, String which) {
        Matcher m = Pattern.compile("LEAK " + which + " fds=(\\d+) maps=(\\d+) kvm_maps=(\\d+) threads=(\\d+)").matcher(out);
        assertTrue(m.find(), "no LEAK " + which + " line:\n" + out);
        return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
            Integer.parseInt(m.group(4))};
    }
}
