package org.jkvm.vmm.io;

/**
 * What jkvm expects a file to be, for {@link InputFile}: its name with its article ("a spec",
 * "an initrd"), as in "is a directory, not a spec", and the most bytes it may have.
 *
 * @param name     the kind with its article
 * @param maxBytes the largest such file jkvm reads
 */
public record InputKind(String name, long maxBytes) {
    public InputKind {
        if (maxBytes < 0) throw new IllegalArgumentException("maxBytes " + maxBytes + " is negative");
    }
}
