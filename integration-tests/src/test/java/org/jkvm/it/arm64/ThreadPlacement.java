package org.jkvm.it.arm64;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where each thread of a jkvm process inside the emulated host may run, read from /proc while
 * its guests run: a shell listing for a step, and the check of what it printed against the
 * vCPUs' pin ({@code --pin}, a spec's {@code pin}) and the rest of jkvm's ({@code --vmm-pin},
 * {@code vmm_pin}).
 */
final class ThreadPlacement {
    private ThreadPlacement() {}

    private static final Pattern LINE = Pattern.compile("THREAD (\\S+) (\\S+)");

    /**
     * Shell (busybox sh) that prints "THREAD name cpus" for each thread of the process whose pid is
     * in {@code $pidVar}, the name's first word only. It reads with the shell's own read: a program
     * per thread takes long enough under emulation for a run to end meanwhile. A thread that ends
     * before its status is read prints nothing.
     */
    static String listing(String pidVar) {
        return "for t in /proc/$" + pidVar + "/task/*; do (while read -r k v rest; do case $k in Name:) n=$v;;"
                + " Cpus_allowed_list:) echo \"THREAD $n $v\";; esac; done < $t/status) 2>/dev/null; done;";
    }

    /**
     * Checks a listing: every vCPU thread ({@code vcpu-*}) may run on {@code vcpuCpus} only, every
     * other thread on {@code otherCpus} only; {@code vcpus} vCPU threads and at least 5 others (the
     * JVM's and jkvm's own) were listed.
     */
    static void assertPinned(String output, String vcpuCpus, String otherCpus, int vcpus) {
        Matcher t = LINE.matcher(output);
        int vcpuThreads = 0;
        int others = 0;
        while (t.find()) {
            boolean vcpu = t.group(1).startsWith("vcpu-");
            assertEquals(vcpu ? vcpuCpus : otherCpus, t.group(2), "pin " + vcpuCpus + ", vmm-pin " + otherCpus
                    + ": where thread " + t.group(1) + " may run");
            if (vcpu) vcpuThreads++; else others++;
        }
        assertEquals(vcpus, vcpuThreads, "the vCPU threads, listed while the guest ran:\n" + output);
        assertTrue(others >= 5, "the JVM's and jkvm's own threads listed:\n" + output);
    }
}
