package org.jkvm.experiment;

import java.io.StringWriter;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The report's cells as CSV: statistics, the median against the base with its interval, Welch's p and the verdict. */
@Tag("unit")
class CellsCsvTest {
    @Test
    void aRowPerCellWithItsVerdict() throws Exception {
        ExperimentSpec spec = ReportTest.spec();
        StringWriter w = new StringWriter();
        CellsCsv.write(Report.of(spec, ReportTest.results(spec)), w);
        List<String> lines = w.toString().lines().toList();
        assertEquals(String.join(",", CellsCsv.COLUMNS), lines.getFirst());
        assertEquals(1 + 2 * 3, lines.size());
        assertEquals("hackbench,base,s,lower,3,0,22,2,22,20,24,,,,,base", lines.get(1));
        // 14, 15, 19 s against 20, 22, 24 s: every resampled median is faster
        String[] pv = lines.get(2).split(",", -1);
        assertEquals(List.of("hackbench", "pv", "s", "lower", "3", "0"), List.of(pv).subList(0, 6));
        assertEquals(22.0 / 15 * 100, Double.parseDouble(pv[11]), 1e-9);
        assertTrue(Double.parseDouble(pv[12]) > 100 && Double.parseDouble(pv[13]) >= Double.parseDouble(pv[11]), lines.get(2));
        // three runs a side: Welch's test is far less sure than the percentile bootstrap (p about 0.05)
        assertTrue(Double.parseDouble(pv[14]) > 0.01 && Double.parseDouble(pv[14]) < 0.1, lines.get(2));
        assertEquals("better", pv[15]);
        // cpu: 99, 100, 101 against 100, 100, 100; one pv run failed on the reference
        assertTrue(lines.get(5).startsWith("cpu,pv,ops/s,higher,3,0,100,1,100,99,101,100,"), lines.get(5));
        assertTrue(lines.get(5).endsWith(",not resolved"), lines.get(5));
        assertTrue(lines.get(6).startsWith("cpu,ref,ops/s,higher,2,1,100,0,100,100,100,100,"), lines.get(6));
    }
}
