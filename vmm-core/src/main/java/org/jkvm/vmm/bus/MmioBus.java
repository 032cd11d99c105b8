package org.jkvm.vmm.bus;

import java.lang.System.Logger.Level;

/**
 * Guest physical address ranges owned by devices, a {@link RangeBus} of {@link MmioWindow}s.
 * An access no device decodes is the guest's mistake, not the VMM's: reads return 0, writes
 * are dropped, and it is counted and logged (the first few only, so a guest cannot flood the log).
 */
public final class MmioBus {
    private static final System.Logger LOG = System.getLogger(MmioBus.class.getName());

    private record Mapped(MmioDevice device, long decoded) {}

    private final RangeBus<Mapped> ranges = new RangeBus<>("MMIO");

    /** Gives {@code window} to {@code device}; windows that overlap one registered are refused. */
    public void register(String name, MmioWindow window, MmioDevice device) {
        ranges.register(name, window.base(), window.size(), new Mapped(device, window.decoded()));
    }

    /** Dispatches a guest read; returns the value for the guest. */
    public long read(int vcpu, long address, int size) {
        RangeBus.Range<Mapped> r = ranges.find(address);
        if (!decodes(r, address)) {
            stray(vcpu, "read", address, size, r);
            return 0;
        }
        return r.owner().device().read(vcpu, address - r.base(), size);
    }

    /** Dispatches a guest write. */
    public void write(int vcpu, long address, int size, long value) {
        RangeBus.Range<Mapped> r = ranges.find(address);
        if (!decodes(r, address)) {
            stray(vcpu, "write", address, size, r);
            return;
        }
        r.owner().device().write(vcpu, address - r.base(), size, value);
    }

    private static boolean decodes(RangeBus.Range<Mapped> r, long address) {
        return r != null && address - r.base() < r.owner().decoded();
    }

    private void stray(int vcpu, String what, long address, int size, RangeBus.Range<Mapped> window) {
        long n = ranges.miss();
        if (n <= RangeBus.LOGGED_MISSES) {
            String at = "guest address 0x" + Long.toHexString(address);
            String where = window == null ? "unmapped " + at
                    : at + " in " + window + ", past the " + window.owner().decoded() + " bytes it decodes";
            LOG.log(Level.WARNING, "vcpu {0}: {1} of {2} bytes at {3}{4}", vcpu, what, size, where,
                    n == RangeBus.LOGGED_MISSES ? " (further ones are only counted)" : "");
        }
    }

    /** How many accesses hit no device. */
    public long strayAccesses() {
        return ranges.misses();
    }
}
