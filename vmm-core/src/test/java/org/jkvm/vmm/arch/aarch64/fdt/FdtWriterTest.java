package org.jkvm.vmm.arch.aarch64.fdt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The blob format itself, read with a ByteBuffer (big endian by default); no dtc needed. */
@Tag("unit")
class FdtWriterTest {

    /** The header, as the Devicetree Specification 5.2 lays it out. */
    record Header(int magic, int totalSize, int offStruct, int offStrings, int offReserveMap, int version,
                  int lastCompVersion, int bootCpuidPhys, int sizeStrings, int sizeStruct) {
        static Header of(byte[] dtb) {
            var b = ByteBuffer.wrap(dtb);
            return new Header(b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt(), b.getInt(),
                    b.getInt(), b.getInt(), b.getInt(), b.getInt());
        }
    }

    private static byte[] strings(byte[] dtb) {
        var h = Header.of(dtb);
        return Arrays.copyOfRange(dtb, h.offStrings(), h.offStrings() + h.sizeStrings());
    }

    private static byte[] struct(byte[] dtb) {
        var h = Header.of(dtb);
        return Arrays.copyOfRange(dtb, h.offStruct(), h.offStruct() + h.sizeStruct());
    }

    private static byte[] cells(int... values) {
        var b = ByteBuffer.allocate(values.length * 4);
        for (int v : values) {
            b.putInt(v);
        }
        return b.array();
    }

    @Test
    void headerDescribesTheBlocksInOrderAndTheSizeIsPaddedTo8() {
        var fdt = new FdtWriter();
        fdt.setBootCpuidPhys(0x101);
        fdt.beginNode("");
        fdt.propertyString("model", "x"); // "model" + NUL: 6 bytes of strings, so the end needs padding
        fdt.endNode();
        byte[] dtb = fdt.finish();
        var h = Header.of(dtb);

        assertEquals(0xd00dfeed, h.magic());
        assertEquals(17, h.version());
        assertEquals(16, h.lastCompVersion());
        assertEquals(0x101, h.bootCpuidPhys());
        assertEquals(40, h.offReserveMap());
        assertEquals(56, h.offStruct(), "after the header and the one terminating reservation entry");
        assertEquals(h.offStruct() + h.sizeStruct(), h.offStrings());
        assertEquals(6, h.sizeStrings());
        assertEquals(dtb.length, h.totalSize());
        assertEquals(0, dtb.length % 8);
        assertEquals(h.offStrings() + 6 + 2, dtb.length);
        assertArrayEquals(new byte[16], Arrays.copyOfRange(dtb, 40, 56), "empty reservation block");
    }

    @Test
    void structureBlockTokensAreBigEndianAndFourByteAligned() {
        var fdt = new FdtWriter();
        fdt.beginNode("");
        fdt.beginNode("ab@1");
        fdt.propertyU32("x", 0x01020304);
        fdt.propertyU64("y", 0x0a0b0c0d_01020304L);
        fdt.propertyEmpty("z");
        fdt.propertyStringList("s", "a", "bc");
        fdt.endNode();
        fdt.endNode();
        byte[] dtb = fdt.finish();

        var expected = ByteBuffer.allocate(1024);
        expected.put(cells(1, 0));                                // FDT_BEGIN_NODE "" + NUL, padded
        expected.put(cells(1)).put("ab@1".getBytes(StandardCharsets.US_ASCII)).put(new byte[4]);
        expected.put(cells(3, 4, 0, 0x01020304));                 // FDT_PROP len nameoff value
        expected.put(cells(3, 8, 2, 0x0a0b0c0d, 0x01020304));
        expected.put(cells(3, 0, 4));
        expected.put(cells(3, 5, 6)).put(new byte[] {'a', 0, 'b', 'c', 0, 0, 0, 0});
        expected.put(cells(2, 2, 9));                             // FDT_END_NODE x2, FDT_END
        assertArrayEquals(Arrays.copyOf(expected.array(), expected.position()), struct(dtb));
        assertArrayEquals("x\0y\0z\0s\0".getBytes(StandardCharsets.US_ASCII), strings(dtb));
    }

    @Test
    void eachPropertyNameIsStoredOnce() {
        var fdt = new FdtWriter();
        fdt.beginNode("");
        fdt.propertyString("compatible", "root");
        for (String child : new String[] {"a", "b", "c"}) {
            fdt.beginNode(child);
            fdt.propertyString("compatible", child);
            fdt.propertyU32("reg", 1);
            fdt.endNode();
        }
        fdt.endNode();

        assertArrayEquals("compatible\0reg\0".getBytes(StandardCharsets.US_ASCII), strings(fdt.finish()));
    }

    @Test
    void unbalancedNestingIsRejected() {
        var open = new FdtWriter();
        open.beginNode("");
        open.beginNode("child");
        open.endNode();
        assertThrows(IllegalStateException.class, open::finish, "root still open");

        var closedTwice = new FdtWriter();
        closedTwice.beginNode("");
        closedTwice.endNode();
        assertThrows(IllegalStateException.class, closedTwice::endNode);

        var secondRoot = new FdtWriter();
        secondRoot.beginNode("");
        secondRoot.endNode();
        assertThrows(IllegalStateException.class, () -> secondRoot.beginNode(""));

        assertThrows(IllegalStateException.class, () -> new FdtWriter().finish(), "no root");
        assertThrows(IllegalStateException.class, () -> new FdtWriter().propertyU32("x", 1), "outside a node");
        assertThrows(IllegalArgumentException.class, () -> new FdtWriter().beginNode("cpus"), "root must be unnamed");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "9cpu", "cpu@", "a b", "cpu/0", "uart@a:0", "abcdefghijklmnopqrstuvwxyz012345"})
    void illegalNodeNamesAreRejected(String name) {
        var fdt = new FdtWriter();
        fdt.beginNode("");
        assertThrows(IllegalArgumentException.class, () -> fdt.beginNode(name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a b", "a=b", "reg@0", "abcdefghijklmnopqrstuvwxyz012345"})
    void illegalPropertyNamesAreRejected(String name) {
        var fdt = new FdtWriter();
        fdt.beginNode("");
        assertThrows(IllegalArgumentException.class, () -> fdt.propertyEmpty(name));
    }

    @Test
    void whatTheSpecificationForbidsInsideANodeIsRejected() {
        var fdt = new FdtWriter();
        fdt.beginNode("");
        fdt.propertyU32("#size-cells", 2);
        assertThrows(IllegalArgumentException.class, () -> fdt.propertyU32("#size-cells", 2), "duplicate property");
        assertThrows(IllegalArgumentException.class, () -> fdt.propertyString("model", "a\0b"), "NUL in a string");
        assertThrows(IllegalArgumentException.class, () -> fdt.propertyStringList("compatible"), "empty list");
        fdt.beginNode("cpus");
        fdt.endNode();
        assertThrows(IllegalArgumentException.class, () -> fdt.beginNode("cpus"), "duplicate sibling");
        assertThrows(IllegalStateException.class, () -> fdt.propertyU32("#address-cells", 2), "after a subnode");
        fdt.endNode();
        fdt.finish();
        assertThrows(IllegalStateException.class, fdt::finish, "a writer builds one blob");
    }
}
