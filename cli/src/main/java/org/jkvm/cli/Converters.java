package org.jkvm.cli;

import java.util.BitSet;

import org.jkvm.pvlock.PvLockMode;
import org.jkvm.vmm.config.CpuOptions;
import org.jkvm.vmm.config.CpuSet;
import org.jkvm.vmm.config.Disk;
import org.jkvm.vmm.config.Net;
import org.jkvm.vmm.config.PvOptions;
import org.jkvm.vmm.config.Sizes;
import org.jkvm.vmm.config.Vsock;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * picocli converters for jkvm's option values. The parsers' own messages name the value and say
 * what to write instead; {@link BadValueHandler} prints them as they are.
 */
final class Converters {
    private Converters() {}

    /** A whole number; surrounding blanks (from a --config file) are ignored. */
    static final class WholeNumber implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            try {
                return Integer.parseInt(text.strip());
            } catch (NumberFormatException e) {
                throw new TypeConversionException("not a whole number");
            }
        }
    }

    /** A size such as 512M or 2G, in bytes ({@link Sizes#parse}). */
    static final class Size implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return Sizes.parse(text);
        }
    }

    /** A host CPU list such as 0-3 or 0,2 ({@link CpuSet#parse}). */
    static final class Cpus implements ITypeConverter<BitSet> {
        @Override
        public BitSet convert(String text) {
            return CpuSet.parse(text);
        }
    }

    /** Paravirtual features such as steal-time=off ({@link PvOptions#parse}). */
    static final class Pv implements ITypeConverter<PvOptions> {
        @Override
        public PvOptions convert(String text) {
            return PvOptions.parse(text);
        }
    }

    /** Optional CPU features such as ptrauth=off ({@link CpuOptions#parse}). */
    static final class Cpu implements ITypeConverter<CpuOptions> {
        @Override
        public CpuOptions convert(String text) {
            return CpuOptions.parse(text);
        }
    }

    /** A PV-lock mode: auto, kernel, userspace, off or track-only ({@link PvLockMode#parse}). */
    static final class PvLock implements ITypeConverter<PvLockMode> {
        @Override
        public PvLockMode convert(String text) {
            return PvLockMode.parse(text);
        }
    }

    /** A disk image and its settings such as root.img,ro ({@link Disk#parse}); the image is checked now. */
    static final class DiskImage implements ITypeConverter<Disk> {
        @Override
        public Disk convert(String text) {
            return Disk.parse(text);
        }
    }

    /** A vsock Unix socket and the guest's context id, such as /tmp/v.sock,cid=5 ({@link Vsock#parse}). */
    static final class VsockSocket implements ITypeConverter<Vsock> {
        @Override
        public Vsock convert(String text) {
            return Vsock.parse(text);
        }
    }

    /** {@code --net tap=NAME[,mac=M]}. */
    static final class NetCard implements ITypeConverter<Net> {
        @Override
        public Net convert(String text) {
            return Net.parse(text);
        }
    }
}
