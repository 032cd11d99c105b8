package org.jkvm.kvm;

import java.lang.invoke.MethodHandles;
import java.util.List;

/**
 * Initialises the classes on the way to a VM's first KVM_RUN ahead of their first use, on a
 * thread of its own, so that work overlaps whatever the caller does meanwhile (e.g. parsing the
 * command line). Their static initialisers bind libc's syscall(2) (a downcall handle means classes
 * the JVM generates, which no AOT cache keeps) and read the generated uapi constants and
 * layouts: seconds of first-time, interpreted work in an emulated host. A class the caller
 * reaches while this thread is still initialising it waits for that initialisation, not repeats
 * it; one that fails to initialise fails the caller's use of it with the same cause.
 */
public final class WarmUp {
    private WarmUp() {}

    /** Starts initialising them on a daemon thread and returns at once. */
    public static void start() {
        Thread t = new Thread(WarmUp::initialise, "jkvm-warm-up");
        t.setDaemon(true);
        t.start();
    }

    private static void initialise() {
        List<Class<?>> classes = List.of(Libc.class, Kvm.class, VmFd.class, VcpuFd.class, KvmRun.class,
                HostUapi.ARCH == Arch.AARCH64 ? Arm64.class : X86.class, MappedMemory.class, DeviceFd.class,
                EventFd.class, StatsFd.class, StatDescriptor.class, ContextSwitchMonitor.class, VectoredFile.class);
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        try {
            for (Class<?> c : classes) lookup.ensureInitialized(c);
        } catch (ReflectiveOperationException | LinkageError e) {
            // the caller's own use of the class meets the failure again, with its cause
        }
    }
}
