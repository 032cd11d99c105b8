package org.jkvm.kvm;

import java.lang.foreign.GroupLayout;

/**
 * One architecture's generated uapi values for the names shared code uses. Each implementation
 * calls its architecture's generated classes directly (no reflection), and its switches are
 * exhaustive, so a name one architecture's bindings lack fails the build on every host.
 */
interface Uapi {
    /** The generated value of a constant; ioctl requests come back as jextract gives them (signed). */
    long constant(UapiConstant c);

    /** The generated layout of a struct. */
    GroupLayout struct(UapiStruct s);

    /** The KVM_EXIT_* number of an exit reason. */
    int exitReason(ExitReason r);

    /** The KVM_CAP_* number of a capability. */
    int capability(Capability c);
}
