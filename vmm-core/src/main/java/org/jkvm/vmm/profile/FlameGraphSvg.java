package org.jkvm.vmm.profile;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Draws folded stacks as an SVG flame graph: the root ({@code all}) at the bottom, each frame a
 * rectangle as wide as its share of all samples above its caller, siblings in name order, with a
 * {@code <title>} (name, samples, share) a browser shows on hover, and the name written in it
 * where it fits. A frame is coloured by the {@link Category} its stack has up to it. Frames
 * narrower than {@link #MIN_WIDTH} pixels are left out (their samples still count in their
 * callers' widths).
 *
 * <p>Written here because nothing on Maven Central renders folded stacks as SVG: flame-graph
 * tools are Perl (flamegraph.pl) or Rust (inferno), and async-profiler's converter writes HTML
 * and is not published as a library.
 */
public final class FlameGraphSvg {
    /** The drawing's width in pixels. */
    static final double WIDTH = 1200;
    /** One frame's height in pixels. */
    static final int FRAME_HEIGHT = 16;
    /** Frames narrower than this many pixels are not drawn. */
    static final double MIN_WIDTH = 0.1;
    /** Margin around the frames and the title's height, in pixels. */
    private static final int MARGIN = 10;
    private static final int TITLE = 24;
    /** An average character's width at the 12 px monospace font the names use. */
    private static final double CHAR_WIDTH = 7.3;

    private FlameGraphSvg() {}

    /** A node of the merged stacks: a frame with its samples (its own and its callees') and its callees. */
    private static final class Node {
        final String name;
        long samples;
        final Map<String, Node> children = new TreeMap<>();

        Node(String name) {
            this.name = name;
        }
    }

    /** The flame graph of {@code folded} (lines {@code outer;...;leaf count}) with {@code title} above it. */
    public static String render(List<String> folded, String title) {
        Node root = new Node("all");
        int depth = 0;
        for (String line : folded) {
            FoldedLine f = FoldedLine.parse(line);
            root.samples += f.count();
            Node n = root;
            for (String frame : f.frames()) {
                n = n.children.computeIfAbsent(frame, Node::new);
                n.samples += f.count();
            }
            depth = Math.max(depth, f.frames().size());
        }
        double height = 2 * MARGIN + TITLE + (depth + 1) * FRAME_HEIGHT;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>%n"
                + "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\""
                + " font-family=\"monospace\" font-size=\"12\">%n", WIDTH + 2 * MARGIN, height, WIDTH + 2 * MARGIN, height));
        b.append(String.format(Locale.ROOT, "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>%n"
                + "<text x=\"%d\" y=\"%d\" font-size=\"14\">%s</text>%n", MARGIN, MARGIN + 14, escape(title)));
        if (root.samples > 0) frame(b, root, new ArrayList<>(), MARGIN, WIDTH, height - MARGIN - FRAME_HEIGHT, root.samples);
        return b.append("</svg>\n").toString();
    }

    private static void frame(StringBuilder b, Node n, List<String> path, double x, double width, double y, long total) {
        String label = String.format(Locale.ROOT, "%s (%d samples, %.2f%%)", n.name, n.samples, 100.0 * n.samples / total);
        b.append(String.format(Locale.ROOT, "<g><title>%s</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\""
                + " fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>", escape(label), x, y, width, FRAME_HEIGHT - 1,
                colour(path)));
        int fits = (int) ((width - 4) / CHAR_WIDTH);
        if (fits >= 3) {
            String text = n.name.length() <= fits ? n.name : n.name.substring(0, fits - 2) + "..";
            b.append(String.format(Locale.ROOT, "<text x=\"%.2f\" y=\"%.0f\">%s</text>", x + 3, y + FRAME_HEIGHT - 4, escape(text)));
        }
        b.append("</g>\n");
        double childX = x;
        for (Node c : n.children.values()) {
            double w = width * c.samples / n.samples;
            if (w >= MIN_WIDTH) {
                path.add(c.name);
                frame(b, c, path, childX, w, y - FRAME_HEIGHT, total);
                path.removeLast();
            }
            childX += w;
        }
    }

    /** The fill of a frame whose stack, below the vCPU, is {@code path}. */
    private static String colour(List<String> path) {
        if (path.size() < 2) return "#c8c8c8";
        return switch (CategoryRules.classify(path.subList(1, path.size()))) {
            case OWNER_SPINNING -> "#e0533c";
            case SPINLOCK_SLOWPATH -> "#f0a030";
            case IDLE -> "#9bb7d4";
            case USER -> "#7cc576";
            case JKVM -> "#b58fd0";
            case OTHER -> "#f2d16b";
        };
    }

    /** {@code text} safe inside an XML element or attribute. */
    static String escape(String text) {
        StringBuilder b = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&apos;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
