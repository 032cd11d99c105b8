package org.jkvm.vmm.host;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.jkvm.kvm.Arch;

/**
 * Which KVM the host runs. On x86_64 the loaded vendor module tells (kvm_intel, kvm_amd, or
 * kvm_pvm, the software virtualizer). On arm64 the mode KVM initialised in is only said in the
 * kernel log ("VHE mode initialized", "Hyp mode initialized" for nVHE, "Protected nVHE mode").
 */
final class KvmFlavour {
    private KvmFlavour() {}

    private static final Pattern VHE = Pattern.compile("(?<![nN])VHE mode initialized");
    private static final System.Logger LOG = System.getLogger(KvmFlavour.class.getName());

    static String detect(Arch arch) {
        return arch == Arch.X86_64 ? x86() : arm64(kernelLog());
    }

    private static String x86() {
        if (Files.isDirectory(Path.of("/sys/module/kvm_pvm"))) return "KVM-PVM (software virtualization)";
        if (Files.isDirectory(Path.of("/sys/module/kvm_intel"))) return "VMX (kvm_intel)";
        if (Files.isDirectory(Path.of("/sys/module/kvm_amd"))) return "SVM (kvm_amd)";
        return "unknown";
    }

    /** The arm64 KVM mode named by the kernel log, "unknown" when the log does not say. */
    static String arm64(String kernelLog) {
        if (kernelLog.contains("Protected nVHE mode initialized")) return "protected nVHE";
        if (VHE.matcher(kernelLog).find()) return "VHE";
        if (kernelLog.contains("Hyp mode initialized") || kernelLog.contains("nVHE mode initialized")) return "nVHE";
        return "unknown";
    }

    private static String kernelLog() {
        try {
            Process p = new ProcessBuilder("dmesg").redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(5, TimeUnit.SECONDS)) p.destroyForcibly();
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "no kernel log to read: {0}", e.getMessage());
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
