package org.jkvm.vmm.config;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.List;

import org.jkvm.vmm.arch.aarch64.Arm64Layout;
import org.jkvm.vmm.io.InputFile;
import org.jkvm.vmm.io.InputKind;

/**
 * What to boot and how, validated once at construction: every problem is a
 * {@link SettingException} that names the setting and what would be right.
 *
 * @param kernel   the guest kernel (an arm64 Image, plain or gzip-compressed)
 * @param initrd   an initramfs, or null
 * @param cmdline  the kernel command line, at most {@link #MAX_CMDLINE_BYTES} - 1 bytes
 * @param cpus     vCPUs, 1 to {@link Arm64Layout#MAX_VCPUS}
 * @param memory   guest RAM in bytes, a whole number of MiB, at least 64 MiB
 * @param pin      host CPUs the vCPU threads may run on, or null for no pinning
 * @param pv       paravirtual features
 * @param pmu      whether the guest gets a PMUv3 (where the host offers one); off by default, see
 *                 {@link org.jkvm.vmm.arch.aarch64.GuestPmu}
 * @param cpu      optional CPU features (pointer authentication, SVE), each where the host offers it
 * @param timeout  how long the guest may run, or null for no limit
 * @param disks    raw images the guest gets as virtio-blk devices, /dev/vda first
 * @param rng      whether the guest gets a virtio-rng device
 * @param console  whether the guest gets a virtio-console: hvc0, and a port for results
 * @param vsock    the guest's virtio-vsock device, or null for none
 * @param net      the guest's virtio-net card on a tap, or null for none
 */
public record VmConfig(Path kernel, Path initrd, String cmdline, int cpus, long memory, BitSet pin,
                       PvOptions pv, boolean pmu, CpuOptions cpu, Duration timeout, List<Disk> disks, boolean rng, boolean console,
                       Vsock vsock, Net net) {
    /** Smallest RAM a Linux guest gets anywhere with. */
    public static final long MIN_MEMORY = 64L << 20;
    /** arm64 Linux's COMMAND_LINE_SIZE, including the terminating NUL: it cuts a longer one off without a word. */
    public static final int MAX_CMDLINE_BYTES = 2048;
    /** The files it names; their sizes are checked against the RAM here, and {@link #memory} bounds what is read. */
    private static final InputKind KERNEL = new InputKind("a kernel image", Long.MAX_VALUE);
    private static final InputKind INITRD = new InputKind("an initrd", Long.MAX_VALUE);

    public VmConfig {
        if (kernel == null) throw new SettingException("kernel", null, "give the guest's arm64 Image");
        requireFile("kernel", kernel, KERNEL);
        if (initrd != null) requireFile("initrd", initrd, INITRD);
        if (cmdline == null) cmdline = "";
        checkValues(cmdline, cpus, memory, pin, timeout);
        fitsInRam("kernel", kernel, memory);
        if (initrd != null) fitsInRam("initrd", initrd, memory);
        if (pin != null) pin = (BitSet) pin.clone();
        if (pv == null) pv = PvOptions.DEFAULT;
        if (cpu == null) cpu = CpuOptions.DEFAULT;
        disks = disks == null ? List.of() : List.copyOf(disks);
        if (disks.size() + (rng ? 1 : 0) + (console ? 1 : 0) + (vsock != null ? 1 : 0) + (net != null ? 1 : 0)
                > Arm64Layout.VIRTIO_SLOTS) {
            throw new SettingException("disk", disks.size() + " disks", "jkvm's arm64 machine has room for "
                    + Arm64Layout.VIRTIO_SLOTS + " virtio devices");
        }
    }

    /** A VM without virtio devices, its vCPUs with every optional CPU feature the host offers. */
    public VmConfig(Path kernel, Path initrd, String cmdline, int cpus, long memory, BitSet pin, PvOptions pv,
                    boolean pmu, Duration timeout) {
        this(kernel, initrd, cmdline, cpus, memory, pin, pv, pmu, CpuOptions.DEFAULT, timeout, List.of(), false, false, null, null);
    }

    /**
     * Checks every setting but the files, as the constructor does: for a front end that knows the
     * values before the kernel and initrd exist (an experiment spec).
     *
     * @param cmdline the kernel command line, or null for none
     * @param pin     the host CPUs, or null for no pinning
     * @param timeout the run's limit, or null for none
     */
    public static void checkValues(String cmdline, int cpus, long memory, BitSet pin, Duration timeout) {
        if (cmdline != null) {
            int bytes = cmdline.getBytes(StandardCharsets.UTF_8).length;
            if (bytes >= MAX_CMDLINE_BYTES) {
                throw new SettingException("cmdline", bytes + " bytes", "arm64 Linux keeps at most "
                        + (MAX_CMDLINE_BYTES - 1) + " bytes of command line (COMMAND_LINE_SIZE)");
            }
            if (cmdline.indexOf('\0') >= 0) {
                throw new SettingException("cmdline", null, "contains a NUL character, which would end it there");
            }
        }
        if (cpus < 1) throw new SettingException("cpus", cpus, "a VM needs at least 1 vCPU");
        if (cpus > Arm64Layout.MAX_VCPUS) {
            throw new SettingException("cpus", cpus, "jkvm's arm64 machine has room for at most "
                    + Arm64Layout.MAX_VCPUS + " vCPUs (GICv3 redistributors)");
        }
        if (memory < MIN_MEMORY) {
            throw new SettingException("memory", Sizes.format(memory), "give at least 64M");
        }
        if (memory % (1L << 20) != 0) {
            throw new SettingException("memory", memory + " bytes", "give a whole number of MiB, e.g. 512M");
        }
        if (pin != null && pin.isEmpty()) throw new SettingException("pin", null, "the CPU set is empty");
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new SettingException("timeout", timeout.toSeconds(), "must be positive");
        }
    }

    private static void requireFile(String setting, Path file, InputKind kind) {
        String problem = InputFile.problem(file, kind);
        if (problem != null) throw new SettingException(setting, file, problem);
    }

    /** A kernel file larger than the RAM cannot fit (decompressed it is larger still), nor can an initrd. */
    private static void fitsInRam(String setting, Path file, long memory) {
        long size = file.toFile().length();
        if (size > memory) {
            throw new SettingException(setting, file, InputFile.size(size) + " is more than the guest's "
                    + InputFile.size(memory) + " of RAM");
        }
    }

    @Override
    public BitSet pin() {
        return pin == null ? null : (BitSet) pin.clone();
    }

    /** Checks what only the host can tell: the vCPU count against its limit. */
    public void checkAgainstHost(int maxVcpus) {
        if (cpus > maxVcpus) {
            throw new SettingException("cpus", cpus, "this host's KVM allows at most " + maxVcpus + " vCPUs per VM");
        }
    }
}
