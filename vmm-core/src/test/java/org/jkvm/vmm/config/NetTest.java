package org.jkvm.vmm.config;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code --net tap=NAME[,mac=M]}: names Linux can hold, unicast addresses, a default address stable per name. */
@Tag("unit")
class NetTest {
    @Test
    void readsTheTapAndTheAddress() {
        Net n = Net.parse("tap=tap0,mac=52:54:00:AB:cd:01");
        assertEquals("tap0", n.tap());
        assertEquals("52:54:00:ab:cd:01", n.mac());
        assertArrayEquals(new byte[] {0x52, 0x54, 0, (byte) 0xab, (byte) 0xcd, 1}, n.macBytes());
    }

    @Test
    void derivesTheSameAddressFromTheSameName() {
        Net a = Net.parse("tap=jkvm0");
        assertEquals(a.mac(), Net.parse("tap=jkvm0").mac());
        assertTrue(a.mac().startsWith("52:54:00:"), a.mac());
        assertNotEquals(a.mac(), Net.parse("tap=jkvm1").mac());
    }

    @Test
    void refusesWhatNoTapOrCardCouldBe() {
        assertThrows(SettingException.class, () -> Net.parse("mac=52:54:00:00:00:01"), "no tap");
        assertThrows(SettingException.class, () -> Net.parse("tap=a-name-of-16-chr"));
        assertThrows(SettingException.class, () -> Net.parse("tap=../x"));
        assertThrows(SettingException.class, () -> Net.parse("tap=.."));
        assertThrows(SettingException.class, () -> Net.parse("tap=tap0,mac=01:00:5e:00:00:01"), "multicast");
        assertThrows(SettingException.class, () -> Net.parse("tap=tap0,mac=52:54:00:00:01"), "five bytes");
        assertThrows(SettingException.class, () -> Net.parse("tap=tap0,vhost=on"));
    }
}
