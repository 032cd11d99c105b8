package org.jkvm.vmm.arch.aarch64.image;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

import org.jkvm.vmm.arch.aarch64.image.BadKernelImageException.Reason;
import org.jkvm.vmm.io.InputFile;
import org.jkvm.vmm.io.InputKind;

/**
 * An arm64 Linux kernel Image, checked against its 64-byte header
 * (Documentation/arch/arm64/booting.rst):
 * <pre>
 *   0  u32 code0         8  u64 text_offset (LE)   24 u64 flags (LE)      56 u32 magic "ARM\x64"
 *   4  u32 code1        16  u64 image_size (LE)    32 u64 res2..res4      60 u32 res5 (PE offset)
 * </pre>
 * An uncompressed Image stays in its file: the checks read its first bytes only, and
 * {@link ImageContent#copyTo} reads it straight into guest RAM. A gzip-compressed Image
 * (Image.gz) is decompressed in memory. Big-endian kernels are refused. An image
 * with image_size 0 (kernels before 3.17) gets text_offset 0x80000 and its file size, as
 * booting.rst says. The image is placed {@code text_offset} bytes above a 2 MiB-aligned base
 * ({@link #loadAddress}); {@link #checkFits} says whether (and how much) guest RAM it needs.
 *
 * @param source       where the image came from (a path, for messages)
 * @param kernel       the (decompressed) image's bytes, or the file holding them
 * @param textOffset   offset from a 2 MiB-aligned base at which the image is placed
 * @param imageSize    bytes the kernel occupies from its load address, BSS included
 * @param flags        the header's flags (0 for a legacy header)
 * @param gzipped      the file was gzip-compressed
 * @param legacyHeader image_size was 0 (a kernel before 3.17): text_offset and size assumed
 */
public record ArmImage(String source, ImageContent kernel, long textOffset, long imageSize, long flags,
                       boolean gzipped, boolean legacyHeader) {

    /** The magic at offset 56: "ARM\x64" read as a little-endian u32. */
    public static final int MAGIC = 0x644d5241;
    public static final int HEADER_SIZE = 64;
    /** Base alignment required by booting.rst. */
    public static final long BASE_ALIGN = 2L << 20;
    /** text_offset assumed for a legacy header (image_size 0). */
    public static final long LEGACY_TEXT_OFFSET = 0x80000;
    /** Default cap on the file and on the decompressed image: 256 MiB (Debian's is 44 MB). */
    public static final long DEFAULT_MAX_BYTES = 256L << 20;

    private static final System.Logger LOG = System.getLogger(ArmImage.class.getName());
    private static final long FLAG_BIG_ENDIAN = 1;
    private static final long FLAG_PHYS_ANYWHERE = 1 << 3;
    private static final long MAX_IMAGE_SIZE = 4L << 30;
    private static final String FIX_ARM64 =
            "Pass an arm64 kernel Image (arch/arm64/boot/Image or Image.gz of a kernel build,"
            + " /boot/vmlinuz-* of a Debian arm64 kernel; guest/build makes one)";

    public ArmImage {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(kernel, "kernel");
    }

    /** Reads and checks {@code file}, capped at {@link #DEFAULT_MAX_BYTES}. */
    public static ArmImage read(Path file) throws IOException {
        return read(file, DEFAULT_MAX_BYTES);
    }

    /**
     * Reads and checks {@code file}; neither the file nor the decompressed image may exceed
     * {@code maxBytes}. A missing or unreadable path, or one that is not a regular file (a directory,
     * a FIFO, /dev/zero), is a {@link BadKernelImageException} ({@link Reason#UNREADABLE}), refused
     * before it is read; other I/O errors are thrown as they are.
     */
    public static ArmImage read(Path file, long maxBytes) throws IOException {
        String src = file.toString();
        String notAFile = InputFile.problem(file, new InputKind("a kernel image", maxBytes));
        if (notAFile != null && Files.exists(file)) {
            throw new BadKernelImageException(src, Reason.UNREADABLE, notAFile,
                    "Pass the kernel Image file itself (guest/build prints JKVM_GUEST_IMAGE=...)");
        }
        // The checks read the file through a mapping of it: only the pages they look at are read.
        long cap = Math.min(maxBytes, Integer.MAX_VALUE);   // what one ByteBuffer can map
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            long size = ch.size();
            if (size > cap) {
                throw tooLarge(src, "the file has " + size + " bytes", cap);
            }
            ByteBuffer k = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena).asByteBuffer();
            if (gzipped(k)) {
                byte[] data = new byte[(int) size];
                k.get(0, data);
                return parse(data, src, maxBytes);
            }
            byte[] header = new byte[(int) Math.min(size, HEADER_SIZE)];
            k.get(0, header);
            return check(k, src, false, new ImageContent.InFile(file, size, header));
        } catch (NoSuchFileException e) {
            throw new BadKernelImageException(src, Reason.UNREADABLE, "no such file",
                    "Check the path (guest/build prints the test guest's as JKVM_GUEST_IMAGE=...)", e);
        } catch (AccessDeniedException e) {
            throw new BadKernelImageException(src, Reason.UNREADABLE, "permission denied",
                    "Make the file readable by the user running jkvm", e);
        }
    }

    /** Checks an image held in memory; {@code sourceName} names it in messages. */
    public static ArmImage parse(byte[] data, String sourceName) {
        return parse(data, sourceName, DEFAULT_MAX_BYTES);
    }

    /** As {@link #parse(byte[], String)}, with a cap on the decompressed size. */
    public static ArmImage parse(byte[] data, String sourceName, long maxBytes) {
        Objects.requireNonNull(data, "data");
        String src = Objects.requireNonNull(sourceName, "sourceName");
        if (data.length > maxBytes) {
            throw tooLarge(src, "it has " + data.length + " bytes", maxBytes);
        }
        boolean gzipped = gzipped(ByteBuffer.wrap(data));
        byte[] k = gzipped ? gunzip(data, src, maxBytes) : data;
        return check(ByteBuffer.wrap(k), src, gzipped, new ImageContent.InMemory(k));
    }

    /** Checks the header of the image {@code k} (all of it, from 0 to its capacity), whose bytes {@code content} holds. */
    private static ArmImage check(ByteBuffer k, String src, boolean gzipped, ImageContent content) {
        String what = gzipped ? "decompressed image" : "file";
        int length = k.capacity();
        if (length < HEADER_SIZE) {
            if (!gzipped && looksLike(k) != null) {
                throw notArm64(src, k);
            }
            throw new BadKernelImageException(src, Reason.TRUNCATED,
                    "the " + what + " has " + length + " bytes, fewer than the " + HEADER_SIZE
                            + "-byte arm64 Image header",
                    "The file is cut off or empty: copy it again, or " + lower(FIX_ARM64));
        }
        ByteBuffer h = k.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (h.getInt(56) != MAGIC) {
            throw notArm64(src, k);
        }
        long end = peRawEnd(h);
        if (end > length) {
            throw new BadKernelImageException(src, Reason.TRUNCATED,
                    "the " + what + " has " + length + " bytes but its header (PE/COFF sections) says "
                            + end,
                    "The file is cut off: copy it again from the kernel build or package");
        }
        long textOffset = h.getLong(8);
        long imageSize = h.getLong(16);
        long flags = h.getLong(24);
        boolean legacy = imageSize == 0;
        if ((flags & FLAG_BIG_ENDIAN) != 0 || (legacy && textOffset == Long.reverseBytes(LEGACY_TEXT_OFFSET))) {
            throw new BadKernelImageException(src, Reason.BIG_ENDIAN,
                    "a big-endian kernel (" + (legacy ? "text_offset 0x80000 stored big-endian" : "header flag bit 0 set")
                            + "); jkvm runs little-endian arm64 guests",
                    "Build the kernel with CONFIG_CPU_BIG_ENDIAN=n (the default)");
        }
        if (legacy) {
            // booting.rst: where image_size is zero, text_offset can be assumed to be 0x80000.
            textOffset = LEGACY_TEXT_OFFSET;
            imageSize = length;
            flags = 0;
        }
        if ((textOffset & 0xfff) != 0 || Long.compareUnsigned(textOffset, BASE_ALIGN) >= 0) {
            throw new BadKernelImageException(src, Reason.BAD_HEADER,
                    "implausible text_offset 0x" + Long.toHexString(textOffset)
                            + " (must be 4 KiB-aligned and below 2 MiB)",
                    "The header is corrupt: " + lower(FIX_ARM64));
        }
        if (Long.compareUnsigned(imageSize, MAX_IMAGE_SIZE) > 0) {
            throw new BadKernelImageException(src, Reason.BAD_HEADER,
                    "implausible image_size 0x" + Long.toHexString(imageSize) + " (over 4 GiB)",
                    "The header is corrupt: " + lower(FIX_ARM64));
        }
        return new ArmImage(src, content, textOffset, imageSize, flags, gzipped, legacy);
    }

    /** Header flag bit 0 (always false for an image this class accepted). */
    public boolean bigEndian() {
        return (flags & FLAG_BIG_ENDIAN) != 0;
    }

    /** The kernel's page size from flags bits 1-2 in KiB: 4, 16, 64, or 0 when unspecified. */
    public int pageSizeKiB() {
        return switch ((int) (flags >>> 1) & 3) {
            case 1 -> 4;
            case 2 -> 16;
            case 3 -> 64;
            default -> 0;
        };
    }

    /**
     * Flags bit 3: the 2 MiB-aligned base may be anywhere in RAM. When clear it should be as
     * close as possible to the start of RAM, which is what {@link #loadAddress} does anyway.
     */
    public boolean placeAnywhere() {
        return (flags & FLAG_PHYS_ANYWHERE) != 0;
    }

    /** Bytes the kernel occupies from its load address: image_size, or the file if larger. */
    public long footprint() {
        return Math.max(imageSize, kernel.size());
    }

    /** Where to copy {@link #kernel} (and jump to): the first 2 MiB-aligned address at or above ramBase, plus text_offset. */
    public long loadAddress(long ramBase) {
        if (ramBase < 0) {
            throw new IllegalArgumentException("RAM base must not be negative: 0x" + Long.toHexString(ramBase));
        }
        return alignUp(ramBase, BASE_ALIGN) + textOffset;
    }

    /** First address after the kernel's footprint; RAM above it is free for the DTB and initrd. */
    public long endAddress(long ramBase) {
        return loadAddress(ramBase) + footprint();
    }

    /** Guest RAM needed from {@code ramBase} to hold the kernel (without DTB and initrd). */
    public long requiredRam(long ramBase) {
        return endAddress(ramBase) - ramBase;
    }

    /**
     * Throws {@link BadKernelImageException} ({@link Reason#DOES_NOT_FIT_RAM}) when the kernel
     * does not fit in {@code ramSize} bytes of RAM starting at {@code ramBase}, saying how much it needs.
     */
    public void checkFits(long ramBase, long ramSize) {
        if (ramSize < 0) {
            throw new IllegalArgumentException("RAM size must not be negative: " + ramSize);
        }
        long need = requiredRam(ramBase);
        if (need > ramSize) {
            long needMiB = (need + (1 << 20) - 1) >> 20;
            throw new BadKernelImageException(source, Reason.DOES_NOT_FIT_RAM,
                    "needs " + needMiB + " MiB of guest RAM (loaded at 0x" + Long.toHexString(loadAddress(ramBase))
                            + ", " + footprint() + " bytes with BSS) but the guest has " + (ramSize >> 20)
                            + " MiB at 0x" + Long.toHexString(ramBase),
                    "Give the guest at least " + needMiB + " MiB of RAM, more for the initrd and the kernel to run");
        }
    }

    /**
     * The kernel release the image announces in its banner ("Linux version RELEASE (...)",
     * {@code linux_banner}, a plain string in an uncompressed arm64 Image), e.g.
     * {@code 6.12.117+deb12-arm64}; empty when no banner is found. Lets results name the guest
     * kernel that produced them.
     */
    public Optional<String> release() {
        try (ReadableByteChannel in = kernel.open()) {
            return KernelBanner.release(in);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "kernel image " + source + ": reading it for its banner failed: " + e);
            return Optional.empty();
        }
    }

    @Override
    public String toString() {
        return "ArmImage[" + source + (gzipped ? " (gzip)" : "") + ", " + kernel.size() + " bytes, text_offset=0x"
                + Long.toHexString(textOffset) + ", image_size=0x" + Long.toHexString(imageSize)
                + ", flags=0x" + Long.toHexString(flags) + (legacyHeader ? ", legacy header" : "") + "]";
    }

    // --- helpers ---------------------------------------------------------------------------

    private static long alignUp(long v, long a) {
        return Math.addExact(v, a - 1) & -a;
    }

    private static String lower(String s) {
        return Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }

    private static boolean gzipped(ByteBuffer data) {
        return data.capacity() >= 2 && (data.get(0) & 0xff) == 0x1f && (data.get(1) & 0xff) == 0x8b;
    }

    private static BadKernelImageException tooLarge(String src, String size, long maxBytes) {
        return new BadKernelImageException(src, Reason.TOO_LARGE,
                size + ", more than the " + (maxBytes >> 20) + " MiB a kernel image may have",
                "Check that this is a kernel Image (Debian's arm64 one has 44 MB)");
    }

    private static byte[] gunzip(byte[] data, String src, long maxBytes) {
        // The gzip trailer's ISIZE (uncompressed size mod 2^32) is a good first guess for the buffer.
        long isize = data.length >= 18
                ? ByteBuffer.wrap(data, data.length - 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() & 0xffffffffL : 0;
        long guess = Math.min(Math.min(isize, maxBytes), 16L * data.length);   // a lying ISIZE cannot make us allocate much
        var out = new ByteArrayOutputStream((int) Math.max(guess, 1 << 16));
        try (var in = new GZIPInputStream(new ByteArrayInputStream(data), 1 << 16)) {
            byte[] buf = new byte[1 << 16];
            long total = 0;
            for (int n; (n = in.read(buf)) > 0; ) {
                total += n;
                if (total > maxBytes) {
                    throw tooLarge(src, "it decompresses to more than " + maxBytes + " bytes", maxBytes);
                }
                out.write(buf, 0, n);
            }
        } catch (EOFException e) {
            throw new BadKernelImageException(src, Reason.TRUNCATED, "the gzip stream ends early",
                    "The file is cut off: copy it again, or pass the uncompressed Image", e);
        } catch (ZipException e) {
            throw new BadKernelImageException(src, Reason.BAD_GZIP, "corrupt gzip data (" + e.getMessage() + ")",
                    "Recompress it with gzip, or pass the uncompressed Image", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);   // not from a byte array
        }
        return out.toByteArray();
    }

    /**
     * The end of the last section's raw data according to the PE/COFF header that EFI-stub
     * kernels carry (res5 = offset of "PE\0\0"), i.e. the file size the header implies;
     * 0 when there is no such header. A section table that itself lies past the end counts.
     */
    private static long peRawEnd(ByteBuffer b) {
        if (!startsWith(b, 0, 'M', 'Z')) {
            return 0;
        }
        int length = b.capacity();
        long pe = b.getInt(60) & 0xffffffffL;
        if (pe < HEADER_SIZE || pe > 1 << 20) {
            return 0;                                   // no PE header we understand
        }
        if (pe + 24 > length) {
            return pe + 24;
        }
        if (b.getInt((int) pe) != 0x00004550) {         // "PE\0\0"
            return 0;
        }
        int sections = b.getShort((int) pe + 6) & 0xffff;
        int optSize = b.getShort((int) pe + 20) & 0xffff;
        long table = pe + 24 + optSize;
        long tableEnd = table + 40L * sections;
        if (tableEnd > length) {
            return tableEnd;
        }
        long end = tableEnd;
        for (int i = 0; i < sections; i++) {
            int s = (int) (table + 40L * i);
            long rawSize = b.getInt(s + 16) & 0xffffffffL;
            long rawPtr = b.getInt(s + 20) & 0xffffffffL;
            if (rawSize != 0) {
                end = Math.max(end, rawPtr + rawSize);
            }
        }
        return end;
    }

    private static BadKernelImageException notArm64(String src, ByteBuffer k) {
        String kind = looksLike(k);
        String problem = "not an arm64 Image (no \"ARM\\x64\" magic at offset 56)" + (kind == null ? "" : ": " + kind);
        String fix = FIX_ARM64;
        if (kind != null && kind.contains("compressed with")) {
            fix = "jkvm decompresses only gzip: decompress it, or recompress it with gzip";
        } else if (kind != null && kind.contains("EFI zboot")) {
            fix = "Pass the plain Image (arch/arm64/boot/Image) or build without CONFIG_EFI_ZBOOT";
        }
        return new BadKernelImageException(src, Reason.NOT_ARM64_IMAGE, problem, fix);
    }

    /** A short description of a few well-known non-Image formats, or null. */
    static String looksLike(ByteBuffer k) {
        if (startsWith(k, 0, 0x7f, 'E', 'L', 'F')) {
            int machine = k.capacity() >= 20 ? (k.get(18) & 0xff) | (k.get(19) & 0xff) << 8 : -1;
            return switch (machine) {
                case 0xb7 -> "it is an arm64 ELF file (a vmlinux?), not the Image made from it";
                case 0x3e -> "it is an x86-64 ELF file";
                default -> "it is an ELF file (a vmlinux?)";
            };
        }
        if (startsWith(k, 0x202, 'H', 'd', 'r', 'S')) {
            return "it is an x86 bzImage";
        }
        if (startsWith(k, 0, 'M', 'Z') && startsWith(k, 4, 'z', 'i', 'm', 'g')) {
            return "it is an EFI zboot image (vmlinuz.efi, compressed inside)";
        }
        if (startsWith(k, 0, '0', '7', '0', '7', '0', '1') || startsWith(k, 0, '0', '7', '0', '7', '0', '2')) {
            return "it is a cpio archive (an initramfs?)";
        }
        if (startsWith(k, 0, 0xfd, '7', 'z', 'X', 'Z', 0)) {
            return "it is compressed with xz";
        }
        if (startsWith(k, 0, 0x28, 0xb5, 0x2f, 0xfd)) {
            return "it is compressed with zstd";
        }
        if (startsWith(k, 0, 'B', 'Z', 'h')) {
            return "it is compressed with bzip2";
        }
        if (startsWith(k, 0, 0x04, 0x22, 0x4d, 0x18) || startsWith(k, 0, 0x02, 0x21, 0x4c, 0x18)) {
            return "it is compressed with lz4";
        }
        if (startsWith(k, 0, 0x5d, 0, 0)) {
            return "it is compressed with lzma";
        }
        return null;
    }

    private static boolean startsWith(ByteBuffer k, int at, int... bytes) {
        if (k.capacity() < at + bytes.length) {
            return false;
        }
        for (int i = 0; i < bytes.length; i++) {
            if ((k.get(at + i) & 0xff) != bytes[i]) {
                return false;
            }
        }
        return true;
    }
}
