package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * The KVM system file descriptor ({@code /dev/kvm}): API version, capabilities, the size of the
 * per-vCPU {@code kvm_run} mapping, and VM creation.
 *
 * <pre>{@code
 * try (Kvm kvm = Kvm.open(); VmFd vm = kvm.createVm()) { ... }
 * }</pre>
 */
public final class Kvm extends KvmFd {
    /** Where KVM lives on Linux. */
    public static final Path DEFAULT_PATH = Path.of("/dev/kvm");

    private static final long GET_API_VERSION = HostUapi.request(UapiConstant.KVM_GET_API_VERSION);
    private static final long CREATE_VM = HostUapi.request(UapiConstant.KVM_CREATE_VM);
    private static final long CHECK_EXTENSION = HostUapi.request(UapiConstant.KVM_CHECK_EXTENSION);
    private static final long GET_VCPU_MMAP_SIZE = HostUapi.request(UapiConstant.KVM_GET_VCPU_MMAP_SIZE);
    private static final int API_VERSION = (int) HostUapi.constant(UapiConstant.KVM_API_VERSION);

    private final Path path;
    private final int vcpuMmapSize;

    private Kvm(int fd, Path path) {
        super(fd, path.toString());
        this.path = path;
        int version = ioctl("KVM_GET_API_VERSION", GET_API_VERSION, 0);
        if (version != API_VERSION) {
            close();
            throw new IllegalStateException(path + " speaks KVM API " + version + "; jkvm needs "
                    + API_VERSION + ": this kernel's KVM is too old or not KVM at all");
        }
        this.vcpuMmapSize = ioctl("KVM_GET_VCPU_MMAP_SIZE", GET_VCPU_MMAP_SIZE, 0);
    }

    /** Opens {@code /dev/kvm}. */
    public static Kvm open() {
        return open(DEFAULT_PATH);
    }

    /**
     * Opens a KVM device node and checks its API version is 12. A missing node or missing
     * permission is a {@link KvmException} whose message says what to do about it.
     */
    public static Kvm open(Path path) {
        int fd = Libc.open(path.toString(), Libc.O_RDWR | Libc.O_CLOEXEC);
        if (fd < 0) {
            int errno = Libc.errno();
            throw new KvmException("open", path.toString(), errno, openHint(errno, path));
        }
        return new Kvm(fd, path);
    }

    private static String openHint(int errno, Path path) {
        return switch (errno) {
            case Libc.ENOENT -> "this host offers no KVM: load the kvm module, run on bare metal or in a VM"
                    + " with nested virtualization; in a container, pass the device in"
                    + " (docker run --device /dev/kvm)";
            case Libc.EACCES, Libc.EPERM -> "no permission: run as root, or add your user to the group"
                    + " that owns " + path + " (usually kvm)";
            default -> null;
        };
    }

    /** The node this was opened from. */
    public Path path() {
        return path;
    }

    /** KVM_GET_API_VERSION (always 12 once open). */
    public int apiVersion() {
        return API_VERSION;
    }

    /** KVM_CHECK_EXTENSION on the system fd: 0 when absent, else a capability-specific value. */
    public int check(Capability cap) {
        return ioctl("KVM_CHECK_EXTENSION", CHECK_EXTENSION, cap.number());
    }

    /** KVM_GET_VCPU_MMAP_SIZE: the bytes of each vCPU's shared {@code kvm_run} mapping. */
    public int vcpuMmapSize() {
        return vcpuMmapSize;
    }

    /** KVM_CREATE_VM with the default machine type. */
    public VmFd createVm() {
        return createVm(0);
    }

    /**
     * KVM_CREATE_VM with a machine type: on arm64 the guest's IPA size in bits
     * ({@link VmFd#armIpaType}), 0 for the default 40 bits.
     */
    public VmFd createVm(long type) {
        int vm = ioctl("KVM_CREATE_VM", CREATE_VM, type);
        return new VmFd(vm, this, type);
    }

    /**
     * KVM_GET_SUPPORTED_CPUID (x86_64): the CPUID entries this KVM can offer, as a
     * {@code kvm_cpuid2} with room for {@code maxEntries}, allocated in {@code arena}.
     */
    public MemorySegment supportedCpuid(Arena arena, int maxEntries) {
        return X86.supportedCpuid(this, arena, maxEntries);
    }
}
