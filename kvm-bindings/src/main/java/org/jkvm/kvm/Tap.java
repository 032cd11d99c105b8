package org.jkvm.kvm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A Linux tap interface as virtio-net's backend: {@code /dev/net/tun} attached with TUNSETIFF
 * (IFF_TAP | IFF_NO_PI | IFF_VNET_HDR) to the interface of that name, which the kernel creates
 * when there is none (it then lives as long as this descriptor). Every frame carries a
 * {@link #VNET_HDR_BYTES}-byte virtio-net header (TUNSETVNETHDRSZ), the layout of virtio 1.x, so
 * frames pass between the tap and the guest's buffers unchanged. Which offloads the tap takes is
 * probed once with TUNSETOFFLOAD; the tap starts with none.
 */
public final class Tap implements AutoCloseable {
    /** The header before each frame: struct virtio_net_hdr_v1 (num_buffers included). */
    public static final int VNET_HDR_BYTES = 12;

    /** What the reader of the tap can take: partially checksummed frames, TCP segmentation. */
    public enum Offload {
        /** TUN_F_CSUM: frames whose checksum is left to the reader. */
        CSUM(UapiConstant.TUN_F_CSUM),
        /** TUN_F_TSO4: TCP over IPv4 segments larger than the MTU. */
        TSO4(UapiConstant.TUN_F_TSO4),
        /** TUN_F_TSO6: TCP over IPv6 segments larger than the MTU. */
        TSO6(UapiConstant.TUN_F_TSO6),
        /** TUN_F_TSO_ECN: such segments with the ECN bits (CWR) set. */
        TSO_ECN(UapiConstant.TUN_F_TSO_ECN);

        private final long flag;

        Offload(UapiConstant constant) {
            this.flag = HostUapi.constant(constant);
        }
    }

    private static final String TUN = "/dev/net/tun";
    private static final long TUNSETIFF = HostUapi.request(UapiConstant.TUNSETIFF);
    private static final long TUNSETVNETHDRSZ = HostUapi.request(UapiConstant.TUNSETVNETHDRSZ);
    private static final long TUNSETOFFLOAD = HostUapi.request(UapiConstant.TUNSETOFFLOAD);
    private static final int IFNAMSIZ = (int) HostUapi.constant(UapiConstant.JKVM_TUN_IFNAMSIZ);
    private static final long IFREQ_BYTES = HostUapi.struct(UapiStruct.jkvm_tun_ifreq).byteSize();
    private static final long IFREQ_NAME = HostUapi.offset(UapiStruct.jkvm_tun_ifreq, "name");
    private static final long IFREQ_FLAGS = HostUapi.offset(UapiStruct.jkvm_tun_ifreq, "flags");
    private static final short TAP_FLAGS = (short) (HostUapi.constant(UapiConstant.IFF_TAP)
            | HostUapi.constant(UapiConstant.IFF_NO_PI) | HostUapi.constant(UapiConstant.IFF_VNET_HDR));
    /** Combinations tried in turn: TSO needs CSUM, and ECN needs TSO. */
    private static final List<Set<Offload>> PROBES = List.of(EnumSet.allOf(Offload.class),
            EnumSet.of(Offload.CSUM, Offload.TSO4, Offload.TSO6), EnumSet.of(Offload.CSUM), EnumSet.noneOf(Offload.class));

    private final String name;
    private final FrameFd frames;
    private final Set<Offload> offered;

    private Tap(String name, FrameFd frames, Set<Offload> offered) {
        this.name = name;
        this.frames = frames;
        this.offered = offered;
    }

    /**
     * Attaches to the tap {@code name} (at most 15 bytes), creating it when there is none; needs
     * CAP_NET_ADMIN, or a persistent tap owned by this user.
     */
    public static Tap open(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length == 0 || bytes.length >= IFNAMSIZ) {
            throw new IllegalArgumentException("tap name '" + name + "' is not 1.." + (IFNAMSIZ - 1) + " characters");
        }
        int fd = Libc.open(TUN, Libc.O_RDWR | Libc.O_CLOEXEC | Libc.O_NONBLOCK);
        if (fd < 0) {
            int errno = Libc.errno();
            throw new KvmException("open", TUN, errno, errno == Libc.ENOENT
                    ? "no tun device: load the tun module (modprobe tun); in a container, pass it in"
                      + " (docker run --device /dev/net/tun --cap-add NET_ADMIN)"
                    : null);
        }
        FrameFd frames = new FrameFd(fd, "tap " + name);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ifr = a.allocate(IFREQ_BYTES, 8);
            MemorySegment.copy(bytes, 0, ifr, JAVA_BYTE, IFREQ_NAME, bytes.length);
            ifr.set(JAVA_SHORT, IFREQ_FLAGS, TAP_FLAGS);
            if (Libc.ioctl(fd, TUNSETIFF, ifr) != 0) {
                throw new KvmException("TUNSETIFF", name + ", IFF_TAP|IFF_NO_PI|IFF_VNET_HDR", Libc.errno(),
                        "creating a tap needs CAP_NET_ADMIN (in a container: docker run --cap-add NET_ADMIN);"
                        + " a persistent one must belong to this user");
            }
            String actual = ifr.asSlice(IFREQ_NAME, IFNAMSIZ).getString(0, StandardCharsets.US_ASCII);
            MemorySegment size = a.allocateFrom(JAVA_INT, VNET_HDR_BYTES);
            if (Libc.ioctl(fd, TUNSETVNETHDRSZ, size) != 0) {
                throw new KvmException("TUNSETVNETHDRSZ", actual + ", " + VNET_HDR_BYTES, Libc.errno());
            }
            Set<Offload> offered = probe(fd);
            return new Tap(actual, frames, offered);
        } catch (RuntimeException e) {
            frames.close();
            throw e;
        }
    }

    private static Set<Offload> probe(int fd) {
        for (Set<Offload> s : PROBES) {
            if (Libc.ioctl(fd, TUNSETOFFLOAD, flags(s)) == 0) {
                set(fd, EnumSet.noneOf(Offload.class));
                return Set.copyOf(s);
            }
        }
        throw new KvmException("TUNSETOFFLOAD", "0", Libc.errno());
    }

    private static long flags(Set<Offload> offloads) {
        long f = 0;
        for (Offload o : offloads) f |= o.flag;
        return f;
    }

    private static void set(int fd, Set<Offload> offloads) {
        if (Libc.ioctl(fd, TUNSETOFFLOAD, flags(offloads)) != 0) {
            throw new KvmException("TUNSETOFFLOAD", offloads.toString(), Libc.errno());
        }
    }

    /** The interface's name, as the kernel gave it. */
    public String name() {
        return name;
    }

    /** Its frames, each after a {@link #VNET_HDR_BYTES}-byte header. */
    public FrameFd frames() {
        return frames;
    }

    /** The offloads TUNSETOFFLOAD accepted when the tap was opened. */
    public Set<Offload> offered() {
        return offered;
    }

    /** Lets the tap hand frames with these offloads to its reader (a subset of {@link #offered}). */
    public void offload(Set<Offload> offloads) {
        set(frames.fd(), offloads);
    }

    @Override
    public void close() {
        frames.close();
    }
}
