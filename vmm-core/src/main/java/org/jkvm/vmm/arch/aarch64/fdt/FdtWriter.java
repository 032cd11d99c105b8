package org.jkvm.vmm.arch.aarch64.fdt;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Writes a flattened device tree blob (DTB) as the Devicetree Specification v0.4, chapter 5,
 * lays it out: version 17, last compatible version 16, big endian, an empty memory
 * reservation block, and a total size padded to 8 bytes (arm64 Linux wants the blob 8-byte
 * aligned in guest memory, and a padded size lets the caller place the next thing right after).
 *
 * <p>Use: {@code beginNode("")} for the root, then properties and nested nodes, {@code endNode()}
 * for each begun node, and {@link #finish()}. The writer rejects what the specification forbids
 * as soon as it is written: unbalanced nesting, illegal or duplicate names, a property after a
 * subnode, a NUL inside a string. Property values that are cells are unsigned 32-bit numbers held
 * in Java {@code int}s (and {@code long}s for 64-bit values), written big endian.
 *
 * <p>Not thread safe; one writer builds one blob.
 */
public final class FdtWriter {

    private static final int MAGIC = 0xd00dfeed;
    private static final int VERSION = 17;
    private static final int LAST_COMPATIBLE_VERSION = 16;
    private static final int HEADER_SIZE = 40;
    /** One reservation entry (address, size) of zeros terminates the (empty) block. */
    private static final int RESERVE_MAP_SIZE = 16;

    private static final int FDT_BEGIN_NODE = 0x1;
    private static final int FDT_END_NODE = 0x2;
    private static final int FDT_PROP = 0x3;
    private static final int FDT_END = 0x9;

    // Devicetree Specification 2.2.1 and 2.2.4: the characters allowed in names, at most 31.
    private static final Pattern NODE_NAME =
            Pattern.compile("[A-Za-z][0-9A-Za-z,._+-]{0,30}(@[0-9A-Za-z,._+-]+)?");
    private static final Pattern PROPERTY_NAME = Pattern.compile("[0-9A-Za-z,._+?#-]{1,31}");

    /** What the writer must remember about each node still open, to reject what may not follow. */
    private static final class OpenNode {
        final String path;
        final Set<String> properties = new HashSet<>();
        final Set<String> children = new HashSet<>();

        OpenNode(String path) {
            this.path = path;
        }
    }

    private final ByteArrayOutputStream struct = new ByteArrayOutputStream();
    private final ByteArrayOutputStream strings = new ByteArrayOutputStream();
    private final Map<String, Integer> stringOffsets = new HashMap<>();
    private final Deque<OpenNode> open = new ArrayDeque<>();
    private boolean rootWritten;
    private boolean finished;
    private int bootCpuidPhys;

    /** Creates an empty writer. */
    public FdtWriter() {}

    /**
     * Sets the header's {@code boot_cpuid_phys}: the physical id of the boot CPU (the {@code reg}
     * of its cpu node). Linux on arm64 does not read it, but the header field must be coherent.
     *
     * @param cpuid the boot CPU's physical id, an unsigned 32-bit value
     */
    public void setBootCpuidPhys(int cpuid) {
        checkNotFinished();
        this.bootCpuidPhys = cpuid;
    }

    /**
     * Begins a node. The first node must be the root, named {@code ""}; every other node is a
     * child of the innermost open node.
     *
     * @param name the node name, {@code name[@unit-address]}, or {@code ""} for the root
     * @throws IllegalArgumentException if the name is illegal or a sibling already has it
     * @throws IllegalStateException    if the root is already complete
     */
    public void beginNode(String name) {
        checkNotFinished();
        OpenNode parent = open.peek();
        String path;
        if (parent == null) {
            if (rootWritten) {
                throw new IllegalStateException("the root node is already complete; a tree has one root");
            }
            if (!name.isEmpty()) {
                throw new IllegalArgumentException("the first node must be the root, named \"\", not \"" + name + "\"");
            }
            path = "/";
            rootWritten = true;
        } else {
            if (!NODE_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("illegal node name \"" + name + "\" under " + parent.path
                        + ": 1-31 characters of [0-9A-Za-z,._+-] starting with a letter, then an optional @unit-address");
            }
            if (!parent.children.add(name)) {
                throw new IllegalArgumentException("duplicate node " + name + " under " + parent.path);
            }
            path = parent.path.equals("/") ? "/" + name : parent.path + "/" + name;
        }
        open.push(new OpenNode(path));
        writeInt(FDT_BEGIN_NODE);
        writeBytes(cString(name));
        pad4();
    }

    /**
     * Ends the innermost open node.
     *
     * @throws IllegalStateException if no node is open
     */
    public void endNode() {
        checkNotFinished();
        if (open.isEmpty()) {
            throw new IllegalStateException("endNode() without a matching beginNode()");
        }
        open.pop();
        writeInt(FDT_END_NODE);
    }

    /**
     * Writes a property with no value, a boolean that is true by being present
     * (e.g. {@code interrupt-controller}).
     *
     * @param name the property name
     */
    public void propertyEmpty(String name) {
        property(name, new byte[0]);
    }

    /**
     * Writes a property of one cell.
     *
     * @param name  the property name
     * @param value the cell, an unsigned 32-bit value
     */
    public void propertyU32(String name, int value) {
        propertyU32Array(name, value);
    }

    /**
     * Writes a property of one 64-bit value (two cells, high cell first).
     *
     * @param name  the property name
     * @param value the value, unsigned
     */
    public void propertyU64(String name, long value) {
        propertyU64Array(name, value);
    }

    /**
     * Writes a property of cells (e.g. {@code interrupts}).
     *
     * @param name   the property name
     * @param values the cells, unsigned 32-bit values
     */
    public void propertyU32Array(String name, int... values) {
        var bytes = new ByteArrayOutputStream(values.length * Integer.BYTES);
        for (int v : values) {
            writeInt(bytes, v);
        }
        property(name, bytes.toByteArray());
    }

    /**
     * Writes a property of 64-bit values, each two cells high first (e.g. {@code reg} where
     * {@code #address-cells} and {@code #size-cells} are 2).
     *
     * @param name   the property name
     * @param values the values, unsigned
     */
    public void propertyU64Array(String name, long... values) {
        int[] cells = new int[values.length * 2];
        for (int i = 0; i < values.length; i++) {
            cells[2 * i] = (int) (values[i] >>> 32);
            cells[2 * i + 1] = (int) values[i];
        }
        propertyU32Array(name, cells);
    }

    /**
     * Writes a NUL-terminated string property, encoded as UTF-8.
     *
     * @param name  the property name
     * @param value the string, without NUL characters
     */
    public void propertyString(String name, String value) {
        property(name, cString(value));
    }

    /**
     * Writes a string-list property: the strings one after another, each NUL-terminated
     * (e.g. a {@code compatible} list, most specific first).
     *
     * @param name   the property name
     * @param values the strings, at least one, none containing NUL
     */
    public void propertyStringList(String name, String... values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("string list " + name + " is empty; use propertyEmpty for a flag");
        }
        var bytes = new ByteArrayOutputStream();
        for (String v : values) {
            bytes.writeBytes(cString(v));
        }
        property(name, bytes.toByteArray());
    }

    /**
     * Writes a property whose value is the given bytes, as they are.
     *
     * @param name  the property name
     * @param value the value
     */
    public void property(String name, byte[] value) {
        checkNotFinished();
        OpenNode node = open.peek();
        if (node == null) {
            throw new IllegalStateException("property " + name + " outside any node");
        }
        if (!PROPERTY_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("illegal property name \"" + name + "\" in " + node.path
                    + ": 1-31 characters of [0-9A-Za-z,._+?#-]");
        }
        // The specification has all of a node's properties precede its subnodes.
        if (!node.children.isEmpty()) {
            throw new IllegalStateException("property " + name + " in " + node.path + " after a subnode");
        }
        if (!node.properties.add(name)) {
            throw new IllegalArgumentException("duplicate property " + name + " in " + node.path);
        }
        writeInt(FDT_PROP);
        writeInt(value.length);
        writeInt(stringOffset(name));
        writeBytes(value);
        pad4();
    }

    /**
     * Completes the blob. The writer cannot be used afterwards.
     *
     * @return the DTB: header, empty memory reservation block, structure block, strings block,
     *         padded to a multiple of 8 bytes
     * @throws IllegalStateException if there is no root node or a node is still open
     */
    public byte[] finish() {
        checkNotFinished();
        if (!rootWritten) {
            throw new IllegalStateException("no root node was written");
        }
        if (!open.isEmpty()) {
            throw new IllegalStateException("node " + open.peek().path + " is still open; " + open.size()
                    + " endNode() call(s) missing");
        }
        writeInt(FDT_END);
        finished = true;

        int offReserveMap = HEADER_SIZE; // 40 is already 8-aligned, as the reservation block must be
        int offStruct = offReserveMap + RESERVE_MAP_SIZE;
        int sizeStruct = struct.size();
        int offStrings = offStruct + sizeStruct;
        int sizeStrings = strings.size();
        int totalSize = align8(offStrings + sizeStrings);

        var blob = new ByteArrayOutputStream(totalSize);
        for (int field : new int[] {MAGIC, totalSize, offStruct, offStrings, offReserveMap, VERSION,
                LAST_COMPATIBLE_VERSION, bootCpuidPhys, sizeStrings, sizeStruct}) {
            writeInt(blob, field);
        }
        blob.writeBytes(new byte[RESERVE_MAP_SIZE]);
        blob.writeBytes(struct.toByteArray());
        blob.writeBytes(strings.toByteArray());
        blob.writeBytes(new byte[totalSize - blob.size()]);
        return blob.toByteArray();
    }

    /** Each property name is stored once in the strings block; properties refer to it by offset. */
    private int stringOffset(String name) {
        return stringOffsets.computeIfAbsent(name, n -> {
            int offset = strings.size();
            strings.writeBytes(cString(n));
            return offset;
        });
    }

    private static byte[] cString(String s) {
        if (s.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("string contains a NUL character: \"" + s.replace('\0', '?') + "\"");
        }
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        byte[] terminated = new byte[utf8.length + 1];
        System.arraycopy(utf8, 0, terminated, 0, utf8.length);
        return terminated;
    }

    private void writeInt(int v) {
        writeInt(struct, v);
    }

    private static void writeInt(ByteArrayOutputStream out, int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }

    private void writeBytes(byte[] b) {
        struct.writeBytes(b);
    }

    /** Tokens in the structure block start on 4-byte boundaries. */
    private void pad4() {
        while (struct.size() % 4 != 0) {
            struct.write(0);
        }
    }

    private static int align8(int n) {
        return (n + 7) & ~7;
    }

    private void checkNotFinished() {
        if (finished) {
            throw new IllegalStateException("finish() was already called; a writer builds one blob");
        }
    }
}
