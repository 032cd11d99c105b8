package org.jkvm.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.jkvm.experiment.ExperimentSpec.Variant;
import org.jkvm.experiment.Report.Cell;
import org.jkvm.experiment.Report.WorkloadReport;

/**
 * The report as a grouped bar chart in plain SVG 1.1: a group per workload, a bar per variant,
 * heights = relative performance of the mean with the base = 100 and higher = better for every
 * workload ({@link Compare#relative}), whiskers from the worst to the best run, a dashed line at
 * 100, the change in percent over each bar (marked where the median is not resolved, with the
 * interval and p-value in the bar's tooltip), a legend, axis labels. When the bars span more than
 * 5x (collapses like the seeds' 30x) the axis is logarithmic and says so.
 */
public final class SvgChart {
    private SvgChart() {}

    /** Base grey, then the Okabe-Ito colour-blind-safe palette. */
    private static final String BASE_COLOUR = "#8c8c8c";
    private static final String[] PALETTE = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"};

    private static final int BAR = 22;
    private static final int BAR_GAP = 3;
    private static final int GROUP_PAD = 28;
    private static final int LEFT = 78;
    private static final int RIGHT = 24;
    private static final int PLOT_H = 320;

    public static String render(Report report) {
        ExperimentSpec spec = report.spec();
        List<Variant> variants = spec.variants();
        int v = variants.size();
        int groups = Math.max(1, report.workloads().size());
        int groupW = v * (BAR + BAR_GAP) - BAR_GAP + GROUP_PAD;
        int plotW = Math.max(420, groups * groupW);
        int width = LEFT + plotW + RIGHT;

        // legend rows: items laid left to right, wrapping
        List<String> labels = new ArrayList<>();
        for (Variant x : variants) {
            String l = x.name() + " (" + fmt(spec.overcommit(x)) + "x";
            if (x.name().equals(spec.base())) l += ", base";
            if (x.name().equals(spec.reference())) l += ", reference";
            labels.add(l + ")");
        }
        int legendX = LEFT;
        int legendRows = 1;
        for (String l : labels) {
            int w = 18 + (int) (l.length() * 6.6) + 18;
            if (legendX + w > LEFT + plotW && legendX > LEFT) {
                legendRows++;
                legendX = LEFT;
            }
            legendX += w;
        }
        int top = 44 + legendRows * 18 + 34;
        int height = top + PLOT_H + 74;

        // the scale
        double lo = Double.POSITIVE_INFINITY;
        double hi = 0;
        for (WorkloadReport w : report.workloads()) {
            for (Cell c : w.cells()) {
                for (double x : new double[] {c.relMean(), c.relLow(), c.relHigh()}) {
                    if (Double.isFinite(x) && x > 0) {
                        lo = Math.min(lo, x);
                        hi = Math.max(hi, x);
                    }
                }
            }
        }
        if (hi == 0) {
            lo = 100;
            hi = 100;
        }
        boolean log = hi / lo > 5;
        Scale scale = log ? Scale.log(Math.min(lo, 100), Math.max(hi, 100), top, PLOT_H)
                : Scale.linear(Math.max(hi, 100) * 1.12, top, PLOT_H);

        StringBuilder sb = new StringBuilder();
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        sb.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n",
                width, height, width, height));
        sb.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height));
        String title = spec.name() + ": performance relative to " + spec.base() + " (= 100), higher is better";
        sb.append(text(LEFT, 24, "start", 15, "bold", title));
        int nMin = Integer.MAX_VALUE;
        int nMax = 0;
        for (WorkloadReport w : report.workloads()) {
            for (Cell c : w.cells()) {
                if (c.stats().n() == 0) continue;
                nMin = Math.min(nMin, c.stats().n());
                nMax = Math.max(nMax, c.stats().n());
            }
        }
        String runs = nMax == 0 ? "no runs yet" : nMin == nMax ? nMax + (nMax == 1 ? " run" : " runs") : nMin + "-" + nMax + " runs";
        String sub = "bars: mean of " + runs + "; whiskers: worst to best run; label: % change of the mean"
                + " (n.r.: the median's 95% interval holds no change)";
        sb.append(text(LEFT, 42, "start", 11, "normal", sub));

        // legend
        int lx = LEFT;
        int ly = 58;
        for (int i = 0; i < v; i++) {
            String l = labels.get(i);
            int w = 18 + (int) (l.length() * 6.6) + 18;
            if (lx + w > LEFT + plotW && lx > LEFT) {
                lx = LEFT;
                ly += 18;
            }
            sb.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
                    lx, ly, colour(spec, i)));
            sb.append(text(lx + 17, ly + 10, "start", 12, "normal", l));
            lx += w;
        }

        // grid and y axis
        int bottom = top + PLOT_H;
        for (double tick : scale.ticks()) {
            double y = scale.y(tick);
            sb.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e0e0e0\" stroke-width=\"1\"/>\n",
                    LEFT, y, LEFT + plotW, y));
            sb.append(text(LEFT - 6, y + 4, "end", 11, "normal", fmt(tick)));
        }
        sb.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n", LEFT, top, LEFT, bottom));
        sb.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n", LEFT, bottom, LEFT + plotW, bottom));
        double y100 = scale.y(100);
        sb.append(String.format(Locale.ROOT,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#555555\" stroke-dasharray=\"5,4\"/>\n",
                LEFT, y100, LEFT + plotW, y100));
        int midY = top + PLOT_H / 2;
        sb.append(String.format(Locale.ROOT,
                "<text x=\"18\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 18 %d)\">%s</text>\n",
                midY, midY, esc("relative performance, " + spec.base() + " = 100" + (log ? " (log scale)" : ""))));

        // bars
        double groupSpace = (double) plotW / groups;
        for (int g = 0; g < report.workloads().size(); g++) {
            WorkloadReport w = report.workloads().get(g);
            double gx = LEFT + g * groupSpace + (groupSpace - (v * (BAR + BAR_GAP) - BAR_GAP)) / 2;
            for (int i = 0; i < v; i++) {
                Cell c = w.cells().get(i);
                double x = gx + i * (BAR + BAR_GAP);
                double cx = x + BAR / 2.0;
                if (!Double.isFinite(c.relMean())) {
                    sb.append(text(cx, bottom - 4, "middle", 9, "normal", "n/a"));
                    continue;
                }
                double y = scale.y(c.relMean());
                sb.append(String.format(Locale.ROOT,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\"><title>%s</title></rect>\n",
                        x, y, BAR, Math.max(0, bottom - y), colour(spec, i),
                        esc(c.variant() + " on " + w.workload().label() + ": " + ReportText.meanSd(c.stats()) + " " + w.unit()
                                + " (n=" + c.stats().n() + ")" + against(c, w, spec.base()))));
                double top2 = y;
                if (Double.isFinite(c.relLow()) && Double.isFinite(c.relHigh()) && c.stats().n() > 1) {
                    double ylo = scale.y(c.relLow());
                    double yhi = scale.y(c.relHigh());
                    sb.append(String.format(Locale.ROOT,
                            "<path d=\"M%.1f %.1f V%.1f M%.1f %.1f H%.1f M%.1f %.1f H%.1f\" stroke=\"#222222\" stroke-width=\"1.2\" fill=\"none\"/>\n",
                            cx, ylo, yhi, cx - 5, ylo, cx + 5, cx - 5, yhi, cx + 5));
                    top2 = Math.min(top2, yhi);
                }
                if (!c.variant().equals(spec.base())) {
                    double ty = top2 - 5;
                    sb.append(String.format(Locale.ROOT,
                            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" transform=\"rotate(-90 %.1f %.1f)\">%s</text>\n",
                            cx + 3.5, ty, cx + 3.5, ty, esc(ReportText.pct(c.changeMean())
                                    + (c.medianInterval().verdict().equals("not resolved") ? " n.r." : ""))));
                }
            }
            double lxc = LEFT + g * groupSpace + groupSpace / 2;
            sb.append(text(lxc, bottom + 17, "middle", 12, "bold", w.workload().label()));
            String unit = w.known() ? w.unit() + ", " + w.better() + " is better" : "no results";
            sb.append(text(lxc, bottom + 32, "middle", 10, "normal", unit));
        }
        sb.append(text(LEFT + plotW / 2.0, bottom + 58, "middle", 12, "normal", "workload"));
        sb.append("</svg>\n");
        return sb.toString();
    }

    /** A tooltip's line on how a variant's median compares with the base's (nothing for the base). */
    private static String against(Cell c, WorkloadReport w, String base) {
        if (c.variant().equals(base)) return "";
        MedianInterval m = c.medianInterval();
        return "; median " + ReportText.num(w.relMedian(c, base)) + " (base = 100), 95% interval "
                + ReportText.interval(m)
                + ", p " + ReportText.pValue(c.welchP()) + ": " + m.verdict();
    }

    private static String colour(ExperimentSpec spec, int i) {
        if (spec.variants().get(i).name().equals(spec.base())) return BASE_COLOUR;
        int k = 0;
        for (int j = 0; j < i; j++) if (!spec.variants().get(j).name().equals(spec.base())) k++;
        return PALETTE[k % PALETTE.length];
    }

    private static String text(double x, double y, String anchor, int size, String weight, String s) {
        return String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\"%s>%s</text>\n",
                x, y, anchor, size, weight.equals("normal") ? "" : " font-weight=\"" + weight + "\"", esc(s));
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String fmt(double x) {
        if (x == Math.rint(x) && Math.abs(x) < 1e9) return Long.toString((long) x);
        return String.format(Locale.ROOT, Math.abs(x) >= 10 ? "%.0f" : "%.2g", x).replaceAll("\\.?0+$", "");
    }

    /** Maps values to y pixels. */
    private record Scale(boolean log, double min, double max, int top, int height) {
        static Scale linear(double max, int top, int height) {
            return new Scale(false, 0, niceStep(max / 6) * Math.ceil(max / niceStep(max / 6)), top, height);
        }

        static Scale log(double lo, double hi, int top, int height) {
            double min = Math.pow(10, Math.floor(Math.log10(lo * 0.9)));
            double max = Math.pow(10, Math.ceil(Math.log10(hi * 1.1)));
            return new Scale(true, min, max, top, height);
        }

        double y(double value) {
            double f = log ? (Math.log10(Math.max(value, min)) - Math.log10(min)) / (Math.log10(max) - Math.log10(min))
                    : (value - min) / (max - min);
            return top + height * (1 - Math.max(0, Math.min(1, f)));
        }

        List<Double> ticks() {
            List<Double> t = new ArrayList<>();
            if (log) {
                for (double decade = min; decade < max * 1.0001; decade *= 10) {
                    for (double m : new double[] {1, 2, 5}) {
                        double x = decade * m;
                        if (x <= max * 1.0001) t.add(x);
                    }
                }
            } else {
                double step = niceStep(max / 6);
                for (double x = 0; x <= max * 1.0001; x += step) t.add(x);
            }
            return t;
        }

        static double niceStep(double raw) {
            double p = Math.pow(10, Math.floor(Math.log10(raw)));
            double f = raw / p;
            return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
        }
    }
}
