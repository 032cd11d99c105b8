package org.jkvm.vmm.arch.aarch64;

import org.jkvm.vmm.bus.HypercallBus;
import org.jkvm.vmm.bus.HypercallHandler;

/**
 * The SMCCC calls jkvm answers in userspace, each function-id range declared once: it is owned
 * on the {@link HypercallBus}, and KVM's {@link SmcccFilter} forwards it to userspace, so what
 * KVM forwards and what jkvm answers cannot disagree.
 */
public final class SmcccHandlers {
    private final HypercallBus bus;
    private final SmcccFilter filter;

    /** Handlers on {@code bus}, whose ranges {@code filter} forwards. */
    public SmcccHandlers(HypercallBus bus, SmcccFilter filter) {
        this.bus = bus;
        this.filter = filter;
    }

    /**
     * Gives {@code handler} the ids {@code first .. first + count - 1} and has KVM forward them.
     * A range overlapping one already given is refused before KVM is told.
     */
    public void add(String name, long first, int count, HypercallHandler handler) {
        bus.register(name, first, count, handler);
        filter.forwardToUser(first, count);
    }
}
