package org.jkvm.kvm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Real KVM: a thousand VMs made and closed leave no descriptor and no mapping behind. */
@Tag("kvm")
class VmLifecycleLeakTest {
    private static final byte[] HLT = {(byte) 0xf4};

    private static Set<String> openFds() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            Set<String> fds = new TreeSet<>();
            for (Path p : s.toList()) {
                try {
                    fds.add(p.getFileName() + " -> " + Files.readSymbolicLink(p));
                } catch (IOException gone) {
                    // the directory stream's own descriptor, closed by now
                }
            }
            return fds;
        }
    }

    /** Start addresses of the guest RAM the runs mapped (mmap reuses few). */
    private static final Set<Long> ramStarts = new TreeSet<>();

    /**
     * Mappings jkvm makes: kvm_run (anon_inode:kvm-vcpu) and guest RAM, recognised by where the
     * runs mapped it and its exact size (the JVM maps and splits 32 KiB regions of its own).
     */
    private static List<String> vmMappings() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(l -> l.contains("kvm") || isGuestRam(l))
                .toList();
    }

    private static boolean isGuestRam(String mapsLine) {
        String[] range = mapsLine.substring(0, mapsLine.indexOf(' ')).split("-");
        long start = Long.parseUnsignedLong(range[0], 16);
        return Long.parseUnsignedLong(range[1], 16) - start == TinyGuest.RAM_SIZE && ramStarts.contains(start);
    }

    @Test
    void thousandVmsWithAVcpuEachLeaveFdsAndMappingsAsTheyWere() throws IOException {
        try (Kvm kvm = KvmTier.openOrSkip()) {
            for (int i = 0; i < 10; i++) runOnce(kvm); // classes loaded, JIT warm
            Set<String> fdsBefore = openFds();
            List<String> mapsBefore = vmMappings();
            for (int i = 0; i < 1000; i++) runOnce(kvm);
            assertEquals(fdsBefore, openFds());
            assertEquals(mapsBefore, vmMappings());
        }
    }

    private static void runOnce(Kvm kvm) {
        try (TinyGuest g = new TinyGuest(kvm, HLT)) {
            ramStarts.add(g.ram.segment().address());
            assertEquals(ExitReason.HLT, g.vcpu.run());
        }
    }
}
