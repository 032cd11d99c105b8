package org.jkvm.vmm.arch.aarch64;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

import org.jkvm.kvm.Capability;
import org.jkvm.kvm.EventFd;
import org.jkvm.kvm.VmFd;
import org.jkvm.vmm.arch.aarch64.fdt.DeviceTreeSpec;
import org.jkvm.vmm.bus.MmioWindow;
import org.jkvm.vmm.devices.IrqLine;
import org.jkvm.vmm.virtio.GuestRam;
import org.jkvm.vmm.virtio.VirtioDevice;
import org.jkvm.vmm.virtio.VirtioMmio;

/**
 * The machine's virtio-mmio transports: the n-th added sits at {@link Arm64Layout#VIRTIO_MMIO} +
 * n * {@link Arm64Layout#VIRTIO_STRIDE} with SPI {@link Arm64Layout#VIRTIO_FIRST_SPI} + n, declared
 * through {@link PlatformDevices} like any device. Where KVM offers them, a queue notification is
 * an ioeventfd (KVM signals the device's doorbell without a vCPU exit) and the interrupt an irqfd
 * on the SPI (GSI n is SPI n under the vGIC's default routing); otherwise the vCPU thread rings the
 * doorbell and the worker pulses the line with KVM_IRQ_LINE; {@code -Djkvm.virtio.ioeventfd=off} forces the
 * first fallback, to measure it. Closing stops the workers and
 * releases the eventfds.
 */
final class VirtioSlots implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(VirtioSlots.class.getName());
    /** Set to {@code off} to measure the fallback on a host that has ioeventfd. */
    static final String IOEVENTFD_PROPERTY = "jkvm.virtio.ioeventfd";

    private record Slot(VirtioMmio transport, EventFd doorbell, EventFd irq) {}

    private final VmFd vm;
    private final PlatformDevices devices;
    private final GuestRam ram;
    private final boolean ioeventfd;
    private final boolean irqfd;
    private final List<Slot> slots = new ArrayList<>();

    VirtioSlots(VmFd vm, PlatformDevices devices, GuestRam ram) {
        this.vm = vm;
        this.devices = devices;
        this.ram = ram;
        this.ioeventfd = vm.check(Capability.IOEVENTFD) > 0 && !"off".equals(System.getProperty(IOEVENTFD_PROPERTY));
        this.irqfd = vm.check(Capability.IRQFD) > 0;
    }

    /** Puts {@code device} in the next slot; on failure the device is closed. */
    void add(VirtioDevice device) {
        int n = slots.size();
        if (n == 0 && !ioeventfd) LOG.log(Level.INFO, "no KVM_IOEVENTFD on this host (or " + IOEVENTFD_PROPERTY + "=off): virtio queue notifications exit to the vCPU threads");
        if (n == 0 && !irqfd) LOG.log(Level.INFO, "no KVM_IRQFD on this host: virtio interrupts are raised with KVM_IRQ_LINE");
        if (n == Arm64Layout.VIRTIO_SLOTS) {
            device.close();
            throw new IllegalArgumentException("no room for " + device.name() + ": the machine has "
                    + Arm64Layout.VIRTIO_SLOTS + " virtio-mmio slots");
        }
        long base = Arm64Layout.VIRTIO_MMIO + n * Arm64Layout.VIRTIO_STRIDE;
        int spi = Arm64Layout.VIRTIO_FIRST_SPI + n;
        var declaration = new PlatformDevice(device.name(), new MmioWindow(base, Arm64Layout.VIRTIO_STRIDE, VirtioMmio.SIZE),
                spi, DeviceTreeSpec.Binding.VIRTIO_MMIO);
        EventFd doorbell = EventFd.create();
        EventFd irq = irqfd ? EventFd.create() : null;
        VirtioMmio[] made = new VirtioMmio[1];
        try {
            if (irq != null) vm.irqfd(irq, spi);
            if (ioeventfd) vm.ioeventfd(doorbell, base + VirtioMmio.QUEUE_NOTIFY, 4, false, null);
            devices.add(declaration, line -> made[0] = new VirtioMmio(device, ram, doorbell, interrupt(irq, line)));
            slots.add(new Slot(made[0], doorbell, irq));
        } catch (RuntimeException e) {
            if (made[0] == null) device.close();
            release(new Slot(made[0], doorbell, irq));
            throw e;
        }
    }

    private static Runnable interrupt(EventFd irq, IrqLine line) {
        if (irq != null) return irq::signal;
        return () -> {
            line.set(true);
            line.set(false);
        };
    }

    @Override
    public void close() {
        for (Slot s : slots.reversed()) release(s);
        slots.clear();
    }

    /** Stops the worker, then closes the eventfds (KVM drops its irqfd when its eventfd closes). */
    private static void release(Slot s) {
        try {
            if (s.transport() != null) s.transport().close();
        } finally {
            s.doorbell().close();
            if (s.irq() != null) s.irq().close();
        }
    }
}
