package org.jkvm.kvm;

/**
 * A failed system call on a KVM file descriptor or on the host: carries the operation's name
 * (the ioctl, e.g. {@code KVM_CREATE_VCPU}), its arguments as text, and the errno with its
 * symbolic name, so a message reads like {@code KVM_CREATE_VCPU(id=3): EEXIST (File exists)}.
 */
public final class KvmException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String operation;
    private final String arguments;
    private final int errno;
    private final String errnoName;

    /** Builds the exception for {@code operation(arguments)} having failed with {@code errno}. */
    public KvmException(String operation, String arguments, int errno) {
        this(operation, arguments, errno, Libc.errnoName(errno), Libc.errnoText(errno), null);
    }

    /** Adds a hint that tells the user what to do about it. */
    public KvmException(String operation, String arguments, int errno, String hint) {
        this(operation, arguments, errno, Libc.errnoName(errno), Libc.errnoText(errno), hint);
    }

    private KvmException(String operation, String arguments, int errno, String name, String text,
                         String hint) {
        super(operation + "(" + arguments + "): " + name + " (" + text + ")"
                + (hint == null ? "" : ": " + hint));
        this.operation = operation;
        this.arguments = arguments;
        this.errno = errno;
        this.errnoName = name;
    }

    /** The name of the ioctl or system call that failed. */
    public String operation() {
        return operation;
    }

    /** The arguments of the failed call, as text. */
    public String arguments() {
        return arguments;
    }

    /** The errno the call failed with. */
    public int errno() {
        return errno;
    }

    /** The errno's symbolic name, e.g. {@code ENXIO}. */
    public String errnoName() {
        return errnoName;
    }
}
