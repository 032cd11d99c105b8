package org.jkvm.vmm.arch.aarch64;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

import org.jkvm.vmm.arch.aarch64.image.ArmImage;
import org.jkvm.vmm.io.InputFile;

/**
 * The kernel Image and the initrd copied into guest RAM on a thread of their own while the caller
 * goes on building the VM (vCPUs, GIC, devices, device tree), which needs nothing of them: tens of
 * MB of copying and page faults, 110-300 ms of the set-up in the emulated arm64 host
 * (bench/boot/README.md). The segments it writes must stay mapped, and the vCPUs stopped, until
 * {@link #await} or {@link #awaitAfter} has returned.
 */
final class PayloadLoad {
    private final FutureTask<Void> copy;

    private PayloadLoad(FutureTask<Void> copy) {
        this.copy = copy;
    }

    /** Starts copying {@code image} into {@code kernel} and, if {@code initrd} is not null, that file into {@code initrdRam}. */
    static PayloadLoad start(ArmImage image, MemorySegment kernel, Path initrd, MemorySegment initrdRam) {
        FutureTask<Void> copy = new FutureTask<>(() -> {
            image.kernel().copyTo(kernel);
            if (initrd != null) InputFile.readInto(initrd, initrdRam);
            return null;
        });
        Thread.ofPlatform().name("jkvm-payload-load").daemon().start(copy);
        return new PayloadLoad(copy);
    }

    /** Waits until the copy is done, however long an interrupt asks; throws what it failed with. */
    void await() throws IOException {
        try {
            waitUninterruptibly();
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case IOException io -> throw io;
                case RuntimeException r -> throw r;
                case Error err -> throw err;
                default -> throw new IllegalStateException("loading the kernel and initrd into guest RAM", e.getCause());
            }
        }
    }

    /** Waits as {@link #await} does after the set-up failed with {@code failure}, to which a failure of the copy is added. */
    void awaitAfter(Throwable failure) {
        try {
            waitUninterruptibly();
        } catch (ExecutionException e) {
            failure.addSuppressed(e.getCause());
        }
    }

    private void waitUninterruptibly() throws ExecutionException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    copy.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }
}
