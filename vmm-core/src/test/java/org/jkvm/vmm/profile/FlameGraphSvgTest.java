package org.jkvm.vmm.profile;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The SVG flame graph of known folded stacks: well-formed, one titled rectangle per frame, widths by samples, names escaped. */
@Tag("unit")
class FlameGraphSvgTest {
    /** A frame as drawn: its title and its rectangle. */
    private record Frame(String title, double x, double y, double width) {}

    private static List<Frame> frames(String svg) throws Exception {
        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
        NodeList gs = d.getElementsByTagName("g");
        List<Frame> out = new ArrayList<>();
        for (int i = 0; i < gs.getLength(); i++) {
            Element g = (Element) gs.item(i);
            Element rect = (Element) g.getElementsByTagName("rect").item(0);
            out.add(new Frame(g.getElementsByTagName("title").item(0).getTextContent(), Double.parseDouble(rect.getAttribute("x")),
                    Double.parseDouble(rect.getAttribute("y")), Double.parseDouble(rect.getAttribute("width"))));
        }
        return out;
    }

    private static Frame named(List<Frame> frames, String title) {
        return frames.stream().filter(f -> f.title().equals(title)).findFirst()
                .orElseThrow(() -> new AssertionError("no frame titled '" + title + "' in " + frames));
    }

    @Test
    void eachFrameIsATitledRectangleAsWideAsItsSamplesAboveItsCaller() throws Exception {
        List<Frame> f = frames(FlameGraphSvg.render(List.of(
                "vcpu0;down_write;osq_lock 3",
                "vcpu0;down_write;queued_spin_lock_slowpath 1",
                "vcpu0;[user] 4",
                "vcpu1;[user] 2"), "test"));
        assertEquals(8, f.size(), "all, vcpu0, vcpu1, down_write, osq_lock, queued_spin_lock_slowpath, [user] twice: " + f);
        Frame all = named(f, "all (10 samples, 100.00%)");
        assertEquals(FlameGraphSvg.WIDTH, all.width(), 0.01);
        Frame vcpu0 = named(f, "vcpu0 (8 samples, 80.00%)");
        Frame down = named(f, "down_write (4 samples, 40.00%)");
        Frame osq = named(f, "osq_lock (3 samples, 30.00%)");
        Frame slow = named(f, "queued_spin_lock_slowpath (1 samples, 10.00%)");
        assertEquals(0.8 * FlameGraphSvg.WIDTH, vcpu0.width(), 0.01);
        assertEquals(0.3 * FlameGraphSvg.WIDTH, osq.width(), 0.01);
        assertEquals(0.1 * FlameGraphSvg.WIDTH, slow.width(), 0.01);
        assertEquals(all.y() - FlameGraphSvg.FRAME_HEIGHT, vcpu0.y(), 1e-9, "callees stand on their callers");
        assertEquals(down.y() - FlameGraphSvg.FRAME_HEIGHT, osq.y(), 1e-9);
        assertEquals(down.x(), osq.x(), 0.01, "siblings in name order from the caller's left edge");
        assertEquals(osq.x() + osq.width(), slow.x(), 0.01);
        assertEquals(all.x(), vcpu0.x(), 0.01);
        assertTrue(named(f, "vcpu1 (2 samples, 20.00%)").x() >= vcpu0.x() + vcpu0.width() - 0.01);
    }

    @Test
    void namesAreEscapedAndTooNarrowFramesLeftOut() throws Exception {
        String svg = FlameGraphSvg.render(List.of("vcpu0;a<b>&\"c' 100000", "vcpu0;tiny 1"), "<&>");
        assertTrue(svg.contains("&lt;&amp;&gt;"), svg);
        List<Frame> f = frames(svg);
        named(f, "a<b>&\"c' (100000 samples, 100.00%)");
        assertEquals(3, f.size(), "a 0.012 px frame is not drawn: " + f);
    }

    @Test
    void noSamplesStillMakeADocument() throws Exception {
        assertEquals(0, frames(FlameGraphSvg.render(List.of(), "empty")).size());
    }
}
