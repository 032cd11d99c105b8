package org.jkvm.vmm.virtio;

import java.lang.System.Logger.Level;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Consumer;

import org.jkvm.kvm.EventFd;
import org.jkvm.kvm.FrameFd;
import org.jkvm.kvm.KvmException;
import org.jkvm.kvm.Tap;
import org.jkvm.vmm.config.Net;

/**
 * virtio-net (virtio 1.2, 5.1) on a tap: a receive and a transmit queue, the MAC in the
 * configuration space, frames moved whole between the tap and the guest's buffers with the
 * 12-byte header both share (the tap is opened with IFF_VNET_HDR and that header size); a received
 * frame may spread over several receive chains (VIRTIO_NET_F_MRG_RXBUF, {@link NetReceiver}). Checksum
 * and TCP segmentation offloads are offered only where the tap took them, each direction's from
 * the same TUNSETOFFLOAD flag, and the tap is told which receive offloads the driver took.
 *
 * <p>Both queues are served on the worker thread: transmit when the guest notifies, receive when
 * a frame comes while a receive buffer waits for one (the worker then polls the tap beside the
 * doorbell) or when the driver adds buffers. A frame the guest sends with a header it may not use
 * (an offload not negotiated, offsets outside the frame) is dropped and counted, as is one the tap
 * refuses; a chain that breaks the protocol (device-writable buffers to send, no room for the
 * header) is a {@link VirtioException}.
 */
public final class VirtioNet implements VirtioDevice {
    private static final System.Logger LOG = System.getLogger(VirtioNet.class.getName());
    /** Feature bits (5.1.3). */
    static final long F_CSUM = 1L, F_GUEST_CSUM = 1L << 1, F_MAC = 1L << 5, F_GUEST_TSO4 = 1L << 7,
            F_GUEST_TSO6 = 1L << 8, F_GUEST_ECN = 1L << 9, F_HOST_TSO4 = 1L << 11, F_HOST_TSO6 = 1L << 12,
            F_HOST_ECN = 1L << 13, F_MRG_RXBUF = 1L << 15;
    /** Queue indices: receive, transmit. */
    static final int RX = 0, TX = 1;
    /** How many dropped frames of each direction are logged. */
    private static final int LOGGED_DROPS = 10;

    private final String name;
    private final byte[] mac;
    private final FrameFd frames;
    private final long features;
    private final Consumer<Set<Tap.Offload>> offload;
    private volatile long negotiated;
    private final NetReceiver receiver;
    private long txDrops, rxDrops;

    /**
     * A card called {@code name} with address {@code mac} whose frames go through {@code frames};
     * {@code offered} are the offloads the host side takes, and {@code offload} tells it which
     * the driver took.
     */
    VirtioNet(String name, byte[] mac, FrameFd frames, Set<Tap.Offload> offered, Consumer<Set<Tap.Offload>> offload) {
        this.name = name;
        this.mac = mac.clone();
        this.frames = frames;
        this.offload = offload;
        this.receiver = new NetReceiver(frames, this::dropReceived);
        long f = VirtioMmio.F_VERSION_1 | F_MAC | F_MRG_RXBUF;
        if (offered.contains(Tap.Offload.CSUM)) f |= F_CSUM | F_GUEST_CSUM;
        if (offered.contains(Tap.Offload.TSO4)) f |= F_HOST_TSO4 | F_GUEST_TSO4;
        if (offered.contains(Tap.Offload.TSO6)) f |= F_HOST_TSO6 | F_GUEST_TSO6;
        if (offered.contains(Tap.Offload.TSO_ECN)) f |= F_HOST_ECN | F_GUEST_ECN;
        this.features = f;
    }

    /** The card {@code net} describes, on its tap (attached, or created). */
    public static VirtioNet open(String name, Net net) {
        Tap tap = Tap.open(net.tap());
        try {
            return new VirtioNet(name, net.macBytes(), tap.frames(), tap.offered(), tap::offload);
        } catch (RuntimeException e) {
            tap.close();
            throw e;
        }
    }

    @Override
    public int deviceId() {
        return 1;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long features() {
        return features;
    }

    @Override
    public int queues() {
        return 2;
    }

    /** mac[6]; the status and later fields belong to features not offered. */
    @Override
    public byte[] config() {
        return mac.clone();
    }

    /** While receive chains wait for a frame, a frame is work too. */
    @Override
    public boolean awaitWork(EventFd doorbell) {
        return receiver.waitsForFrame() ? frames.awaitReadable(doorbell, -1) : doorbell.await(-1);
    }

    /** Sets the tap's receive offloads to those the driver took. */
    @Override
    public void negotiated(long driverFeatures) {
        negotiated = driverFeatures;
        receiver.reset((driverFeatures & F_MRG_RXBUF) != 0);
        Set<Tap.Offload> on = EnumSet.noneOf(Tap.Offload.class);
        if ((driverFeatures & F_GUEST_CSUM) != 0) on.add(Tap.Offload.CSUM);
        if ((driverFeatures & F_GUEST_TSO4) != 0) on.add(Tap.Offload.TSO4);
        if ((driverFeatures & F_GUEST_TSO6) != 0) on.add(Tap.Offload.TSO6);
        if ((driverFeatures & F_GUEST_ECN) != 0) on.add(Tap.Offload.TSO_ECN);
        setOffloads(on);
    }

    /** A failure leaves the tap's offloads fewer, never more, than the driver's: frames stay ones it can take. */
    private void setOffloads(Set<Tap.Offload> on) {
        try {
            offload.accept(on);
        } catch (KvmException e) {
            LOG.log(Level.WARNING, name + ": setting the tap's offloads to " + on + " failed", e);
        }
    }

    @Override
    public void reset() {
        receiver.reset(false);
        negotiated = 0;
        setOffloads(EnumSet.noneOf(Tap.Offload.class));
    }

    @Override
    public boolean serve(int index, VirtQueue queue) throws VirtioException {
        return switch (index) {
            case RX -> receiver.receive(queue);
            case TX -> transmit(queue);
            default -> false;
        };
    }

    /** Sends each chain's frame to the tap, or drops it; every chain is returned unwritten-to. */
    private boolean transmit(VirtQueue queue) throws VirtioException {
        boolean used = false;
        for (DescriptorChain c = queue.next(); c != null; c = queue.next()) {
            if (!c.writable().isEmpty()) {
                throw new VirtioException("transmit chain from descriptor %d has device-writable buffers".formatted(c.head()));
            }
            long total = Buffers.total(c.readable());
            if (total < NetHeader.BYTES) {
                throw new VirtioException("transmit chain from descriptor %d has %d bytes, less than the %d-byte header"
                        .formatted(c.head(), total, NetHeader.BYTES));
            }
            String problem = NetHeader.txProblem(Buffers.copyOut(c.readable(), NetHeader.BYTES), total - NetHeader.BYTES, negotiated);
            if (problem == null) problem = send(c);
            if (problem != null && txDrops++ < LOGGED_DROPS) {
                LOG.log(Level.WARNING, "{0}: a frame from the guest was dropped: {1}", name, problem);
            }
            queue.complete(c.head(), 0);
            used = true;
        }
        return used;
    }

    /** Writes the chain's frame to the tap; returns why it did not go, or null. */
    private String send(DescriptorChain c) {
        try {
            return frames.write(c.readable()) ? null : "the tap is full";
        } catch (KvmException e) {
            return "the tap refused it: " + e.getMessage();
        }
    }

    private void dropReceived(String why) {
        if (rxDrops++ < LOGGED_DROPS) LOG.log(Level.WARNING, "{0}: a frame for the guest was dropped: {1}", name, why);
    }

    /** Closes the tap. */
    @Override
    public void close() {
        frames.close();
    }
}
