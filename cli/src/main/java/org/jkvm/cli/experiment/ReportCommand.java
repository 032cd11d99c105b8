package org.jkvm.cli.experiment;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import org.jkvm.cli.HelpOptions;
import org.jkvm.cli.OptionBinding;
import org.jkvm.experiment.CellsCsv;
import org.jkvm.experiment.CsvExport;
import org.jkvm.experiment.ExperimentSpec;
import org.jkvm.experiment.Report;
import org.jkvm.experiment.RunResult;
import org.jkvm.vmm.io.OutputFile;

import picocli.CommandLine.Model.CommandSpec;

/** {@code jkvm experiment report}: the report of the results so far, with the chart and CSVs on request. */
final class ReportCommand implements Callable<Integer> {
    private CommandSpec cs;
    private SpecFile spec;
    private ResultsReading reading;
    private Path svg;
    private Path csv;
    private Path cellsCsv;

    private ReportCommand() {}

    /** The model of {@code report}, its options bound to a new ReportCommand. */
    static CommandSpec spec() {
        ReportCommand c = new ReportCommand();
        c.cs = HelpOptions.command(c, "Print the report of the results so far; optionally write the SVG chart and the CSVs.");
        c.spec = SpecFile.addTo(c.cs);
        c.reading = ResultsReading.addTo(c.cs);
        c.cs.addOption(OptionBinding.option("--svg", "FILE", Path.class, () -> c.svg, v -> c.svg = v)
                .description("Write the chart here.").build());
        c.cs.addOption(OptionBinding.option("--csv", "FILE", Path.class, () -> c.csv, v -> c.csv = v)
                .description("Write every result as CSV here.").build());
        c.cs.addOption(OptionBinding.option("--cells-csv", "FILE", Path.class, () -> c.cellsCsv, v -> c.cellsCsv = v)
                .description("Write the report's cells (statistics, median against the base with its interval,"
                        + " p-value, verdict) as CSV here.").build());
        return c.cs;
    }

    @Override
    public Integer call() throws Exception {
        Map<Path, String> outputs = new LinkedHashMap<>();
        if (svg != null) outputs.put(svg, "--svg");
        if (csv != null) outputs.put(csv, "--csv");
        if (cellsCsv != null) outputs.put(cellsCsv, "--cells-csv");
        OutputFile.refuseOverInputs(outputs, spec.inputs(), "choose another file");
        ExperimentSpec s = ExperimentSpec.load(spec.file);
        List<RunResult> all = reading.read(spec, cs.commandLine().getErr());
        Report r = Report.of(s, all);
        cs.commandLine().getOut().print(r.text());
        if (svg != null) r.writeSvg(svg);
        if (csv != null) CsvExport.write(all, csv);
        if (cellsCsv != null) CellsCsv.write(r, cellsCsv);
        return 0;
    }
}
