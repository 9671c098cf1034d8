package io.fastleader.benchmarks.leadermove;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A PNG of each second's worst end-to-end latency per variant over the run, the disturbances
 * shaded behind the lines.
 */
final class LatencyChart {

    private static final int WIDTH = 1200;
    private static final int HEIGHT = 600;
    /** Disturbances in translucent grey, so that the latency lines stay readable over them. */
    private static final Color SHADE = new Color(128, 128, 128, 70);

    private LatencyChart() {
    }

    static void write(Path file, List<VariantResult> results, List<Scenario.Disturbance> disturbances, long startMillis)
            throws IOException {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT)
            .title("Worst end-to-end latency per second").xAxisTitle("seconds since traffic started").yAxisTitle("ms").build();
        double top = results.stream().flatMap(r -> r.endToEndMaxBySecond().values().stream()).mapToDouble(Double::doubleValue)
            .max().orElse(1);
        if (!disturbances.isEmpty()) {
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (Scenario.Disturbance disturbance : disturbances) {
                double start = (disturbance.startMillis() - startMillis) / 1000.0;
                double end = (disturbance.endMillis() - startMillis) / 1000.0;
                x.addAll(List.of(start, start, end, end));
                y.addAll(List.of(0.0, top, top, 0.0));
            }
            XYSeries shaded = chart.addSeries("disturbances", x, y);
            shaded.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Area);
            shaded.setMarker(SeriesMarkers.NONE);
            shaded.setFillColor(SHADE);
            shaded.setLineColor(SHADE);
        }
        for (VariantResult result : results) {
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (Map.Entry<Long, Double> second : result.endToEndMaxBySecond().entrySet()) {
                double at = second.getKey() - startMillis / 1000.0;
                if (at >= 0) {
                    x.add(at);
                    y.add(second.getValue());
                }
            }
            if (!x.isEmpty()) {
                chart.addSeries(result.variant().label(), x, y).setMarker(SeriesMarkers.NONE);
            }
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        System.out.println("chart in " + file.toAbsolutePath());
    }
}
