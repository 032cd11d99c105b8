package org.jkvm.vmm.virtio;

import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import org.jkvm.kvm.EventFd;
import org.jkvm.vmm.bus.MmioDevice;

/**
 * The virtio-mmio transport, version 2 (virtio 1.2, 4.2.2), for one {@link VirtioDevice}. The
 * vCPU threads only touch registers; the queues are served by the device's own worker thread,
 * woken by the doorbell eventfd (which KVM signals itself when it has an ioeventfd on
 * {@link #QUEUE_NOTIFY}; otherwise a write there rings it), or by input of the device's own (a
 * tap's frame, {@link VirtioDevice#awaitWork}), and interrupting the guest through
 * {@code interrupt} (an irqfd where KVM has one). A guest that breaks the protocol gets
 * DEVICE_NEEDS_RESET and a configuration-change interrupt; its queues are not served until it
 * resets the device.
 */
public final class VirtioMmio implements MmioDevice, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(VirtioMmio.class.getName());

    /** Bytes of register space, configuration space included. */
    public static final int SIZE = 0x200;
    /** The register the driver writes a queue's index to when it made buffers available. */
    public static final int QUEUE_NOTIFY = 0x050;
    /** VIRTIO_F_VERSION_1: a modern (virtio 1.x) device; the only kind offered. */
    public static final long F_VERSION_1 = 1L << 32;
    /** VIRTIO_RING_F_INDIRECT_DESC: chains may be tables in guest memory; the transport offers it for every device. */
    static final long F_INDIRECT_DESC = 1L << 28;
    /** VIRTIO_RING_F_EVENT_IDX: notifications and interrupts asked for by ring index; offered for every device. */
    static final long F_EVENT_IDX = 1L << 29;

    private static final int MAGIC_VALUE = 0x000, VERSION = 0x004, DEVICE_ID = 0x008, VENDOR_ID = 0x00c;
    private static final int DEVICE_FEATURES = 0x010, DEVICE_FEATURES_SEL = 0x014;
    private static final int DRIVER_FEATURES = 0x020, DRIVER_FEATURES_SEL = 0x024;
    private static final int QUEUE_SEL = 0x030, QUEUE_NUM_MAX = 0x034, QUEUE_NUM = 0x038, QUEUE_READY = 0x044;
    private static final int INTERRUPT_STATUS = 0x060, INTERRUPT_ACK = 0x064, STATUS = 0x070;
    private static final int QUEUE_DESC_LOW = 0x080, QUEUE_DESC_HIGH = 0x084;
    private static final int QUEUE_DRIVER_LOW = 0x090, QUEUE_DRIVER_HIGH = 0x094;
    private static final int QUEUE_DEVICE_LOW = 0x0a0, QUEUE_DEVICE_HIGH = 0x0a4;
    private static final int CONFIG_GENERATION = 0x0fc, CONFIG = 0x100;

    private static final int MAGIC = 0x7472_6976; // "virt"
    private static final int VENDOR = 0x4d56_4b4a; // "JKVM"
    /** Device status bits (virtio 1.2, 2.1). */
    static final int S_DRIVER_OK = 4, S_FEATURES_OK = 8, S_NEEDS_RESET = 64;
    /** Interrupt status bits: a used buffer, a configuration change. */
    static final int INT_VRING = 1, INT_CONFIG = 2;

    /** One queue's registers as the driver set them, and the queue once it is ready. */
    private static final class QueueSetup {
        int num;
        long desc, driver, device;
        VirtQueue queue;
    }

    private final VirtioDevice device;
    private final GuestRam ram;
    private final EventFd doorbell;
    private final Runnable interrupt;
    private final byte[] config;
    private final QueueSetup[] queues;
    private final ReentrantLock lock = new ReentrantLock();
    private final AtomicInteger interruptStatus = new AtomicInteger();
    private final Thread worker;
    private volatile boolean closed;
    private int status;
    private int deviceFeaturesSel, driverFeaturesSel, queueSel;
    private long driverFeatures;

    /**
     * The transport for {@code device} over {@code ram}; its worker waits on {@code doorbell} and
     * raises the guest's interrupt with {@code interrupt}. The worker starts at once.
     */
    public VirtioMmio(VirtioDevice device, GuestRam ram, EventFd doorbell, Runnable interrupt) {
        this.device = device;
        this.ram = ram;
        this.doorbell = doorbell;
        this.interrupt = interrupt;
        this.config = device.config();
        this.queues = new QueueSetup[device.queues()];
        for (int i = 0; i < queues.length; i++) queues[i] = new QueueSetup();
        device.attach(doorbell::signal);
        this.worker = Thread.ofPlatform().name(device.name()).daemon().start(this::work);
    }

    @Override
    public long read(int vcpu, long offset, int size) {
        if (offset >= CONFIG) return configRead((int) (offset - CONFIG), size);
        if (size != 4) return 0;
        // Lock-free: the guest's interrupt handler must not wait for a batch of disk I/O.
        if (offset == INTERRUPT_STATUS) return interruptStatus.get();
        lock.lock();
        try {
            QueueSetup q = selectedQueue();
            return Integer.toUnsignedLong(switch ((int) offset) {
                case MAGIC_VALUE -> MAGIC;
                case VERSION -> 2;
                case DEVICE_ID -> device.deviceId();
                case VENDOR_ID -> VENDOR;
                case DEVICE_FEATURES -> Integer.compareUnsigned(deviceFeaturesSel, 1) > 0 ? 0
                        : (int) (offered() >>> (32 * deviceFeaturesSel));
                case QUEUE_NUM_MAX -> q == null ? 0 : device.queueMaxSize();
                case QUEUE_READY -> q != null && q.queue != null ? 1 : 0;
                case STATUS -> status;
                case CONFIG_GENERATION -> 0;
                default -> 0;
            });
        } finally {
            lock.unlock();
        }
    }

    private long configRead(int at, int size) {
        long v = 0;
        for (int i = size - 1; i >= 0; i--) {
            int b = at + i < config.length ? config[at + i] & 0xff : 0;
            v = v << 8 | b;
        }
        return v;
    }

    @Override
    public void write(int vcpu, long offset, int size, long value) {
        if (offset == QUEUE_NOTIFY) {
            doorbell.signal();
            return;
        }
        if (size != 4 || offset >= CONFIG) return;
        int v = (int) value;
        if (offset == INTERRUPT_ACK) {
            interruptStatus.getAndUpdate(s -> s & ~v);
            return;
        }
        lock.lock();
        try {
            QueueSetup q = selectedQueue();
            switch ((int) offset) {
                case DEVICE_FEATURES_SEL -> deviceFeaturesSel = v;
                case DRIVER_FEATURES_SEL -> driverFeaturesSel = v;
                case DRIVER_FEATURES -> setDriverFeatures(v);
                case QUEUE_SEL -> queueSel = v;
                case STATUS -> setStatus(v);
                default -> {
                    if (q != null && q.queue == null) setQueue(q, (int) offset, v);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The queue QueueSel names, or null: the selector is the guest's, any 32-bit value. */
    private QueueSetup selectedQueue() {
        return Integer.compareUnsigned(queueSel, queues.length) < 0 ? queues[queueSel] : null;
    }

    private void setDriverFeatures(int v) {
        if ((status & S_FEATURES_OK) != 0 || Integer.compareUnsigned(driverFeaturesSel, 1) > 0) return;
        int shift = 32 * driverFeaturesSel;
        driverFeatures = driverFeatures & ~(0xffff_ffffL << shift) | (Integer.toUnsignedLong(v) << shift);
    }

    private void setQueue(QueueSetup q, int offset, int v) {
        long u = Integer.toUnsignedLong(v);
        switch (offset) {
            case QUEUE_NUM -> q.num = v;
            case QUEUE_DESC_LOW -> q.desc = q.desc & ~0xffff_ffffL | u;
            case QUEUE_DESC_HIGH -> q.desc = q.desc & 0xffff_ffffL | u << 32;
            case QUEUE_DRIVER_LOW -> q.driver = q.driver & ~0xffff_ffffL | u;
            case QUEUE_DRIVER_HIGH -> q.driver = q.driver & 0xffff_ffffL | u << 32;
            case QUEUE_DEVICE_LOW -> q.device = q.device & ~0xffff_ffffL | u;
            case QUEUE_DEVICE_HIGH -> q.device = q.device & 0xffff_ffffL | u << 32;
            case QUEUE_READY -> {
                if (v != 1) return;
                try {
                    q.queue = VirtQueue.open(ram, q.num, device.queueMaxSize(), q.desc, q.driver, q.device,
                            (driverFeatures & F_INDIRECT_DESC) != 0, (driverFeatures & F_EVENT_IDX) != 0);
                } catch (VirtioException e) {
                    needsReset("queue " + queueSel + ": " + e.getMessage());
                }
            }
            default -> { }
        }
    }

    private void setStatus(int v) {
        if (v == 0) {
            reset();
            return;
        }
        if ((v & S_FEATURES_OK) != 0 && (status & S_FEATURES_OK) == 0) {
            if (featuresAcceptable()) {
                device.negotiated(driverFeatures);
            } else {
                v &= ~S_FEATURES_OK;
            }
        }
        status = v | (status & S_NEEDS_RESET);
        if ((status & S_DRIVER_OK) != 0) doorbell.signal(); // buffers may already be waiting
    }

    private long offered() {
        return device.features() | F_INDIRECT_DESC | F_EVENT_IDX;
    }

    /** The driver took only features offered, and VIRTIO_F_VERSION_1 among them. */
    private boolean featuresAcceptable() {
        return (driverFeatures & ~offered()) == 0 && (driverFeatures & F_VERSION_1) != 0;
    }

    private void reset() {
        status = 0;
        driverFeatures = 0;
        deviceFeaturesSel = driverFeaturesSel = queueSel = 0;
        interruptStatus.set(0);
        for (int i = 0; i < queues.length; i++) queues[i] = new QueueSetup();
        device.reset();
    }

    /** Called with the lock held. */
    private void needsReset(String why) {
        if ((status & S_NEEDS_RESET) == 0) {
            LOG.log(Level.WARNING, "{0}: the guest broke the virtio protocol, the device needs a reset: {1}", device.name(), why);
        }
        status |= S_NEEDS_RESET;
        interruptStatus.getAndUpdate(s -> s | INT_CONFIG);
        interrupt.run();
    }

    private void work() {
        while (!closed) {
            try {
                // A device with input of its own waits for it only while its queues are served:
                // a guest that broke the protocol must not make the worker spin on that input.
                if (!(serving() ? device.awaitWork(doorbell) : doorbell.await(-1))) continue;
                doorbell.take();
                // Serving one queue may give another work (a control answer): go round until a pass uses nothing.
                boolean more = true;
                while (more && !closed) more = serveQueues();
            } catch (RuntimeException e) {
                // The doorbell or the interrupt failed (an eventfd or KVM_IRQ_LINE error): the
                // guest is told its device needs a reset rather than waiting on it for ever.
                LOG.log(Level.ERROR, device.name() + ": its worker failed; the device needs a reset", e);
                lock.lock();
                try {
                    status |= S_NEEDS_RESET;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    private boolean serving() {
        lock.lock();
        try {
            return (status & (S_DRIVER_OK | S_NEEDS_RESET)) == S_DRIVER_OK;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Serves every ready queue once, as the doorbell does not say which queue rang, the driver
     * asked not to notify meanwhile, and interrupts the guest if a chain was used on a queue whose
     * driver wants interrupts; returns whether one was used or chains came without a notification.
     */
    boolean serveQueues() {
        boolean used = false, raise = false, news = false;
        lock.lock();
        try {
            if (!serving()) return false;
            for (int i = 0; i < queues.length; i++) {
                VirtQueue q = queues[i].queue;
                if (q == null) continue;
                try {
                    q.suppressNotifications();
                    boolean u = device.serve(i, q);
                    news |= q.resumeNotifications();
                    used |= u;
                    raise |= u && q.interruptWanted();
                } catch (VirtioException e) {
                    needsReset("queue " + i + ": " + e.getMessage());
                    return false;
                } catch (RuntimeException e) {
                    LOG.log(Level.ERROR, device.name() + ": serving queue " + i + " failed; the device needs a reset", e);
                    needsReset("queue " + i + ": " + e);
                    return false;
                }
            }
            // Under the lock: a driver reset between this and the interrupt clears it.
            if (raise) interruptStatus.getAndUpdate(s -> s | INT_VRING);
        } finally {
            lock.unlock();
        }
        if (raise) interrupt.run();
        return used || news;
    }

    /** Stops the worker and closes the device; the doorbell and interrupt belong to the caller. */
    @Override
    public void close() {
        closed = true;
        doorbell.signal();
        try {
            worker.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            device.close();
        }
    }
}
