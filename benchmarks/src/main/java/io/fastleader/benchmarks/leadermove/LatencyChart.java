package io.fastleader.benchmarks.leadermove;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import javax.imageio.ImageIO;

import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A PNG of each second's worst produce latency (top) and end-to-end latency (bottom) per variant,
 * from the end of the warm-up on, the disturbances shaded behind the lines.
 */
final class LatencyChart {

    private static final int WIDTH = 1200;
    private static final int PANEL_HEIGHT = 450;
    /** Disturbances in translucent grey, so that the latency lines stay readable over them. */
    private static final Color SHADE = new Color(128, 128, 128, 70);

    private LatencyChart() {
    }

    /**
     * @param measuredFromMillis when the warm-up ended (epoch ms): the chart's zero, nothing earlier is drawn
     */
    static void write(Path file, List<VariantResult> results, List<Scenario.Disturbance> disturbances, long measuredFromMillis)
            throws IOException {
        XYChart produce = panel("Worst produce latency per second (send to acknowledgement)", results, VariantResult::produceMaxBySecond,
            disturbances, measuredFromMillis);
        XYChart endToEnd = panel("Worst end-to-end latency per second (send to poll)", results, VariantResult::endToEndMaxBySecond,
            disturbances, measuredFromMillis);
        BufferedImage image = new BufferedImage(WIDTH, 2 * PANEL_HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D graphics = image.createGraphics();
        try {
            graphics.drawImage(BitmapEncoder.getBufferedImage(produce), 0, 0, null);
            graphics.drawImage(BitmapEncoder.getBufferedImage(endToEnd), 0, PANEL_HEIGHT, null);
        } finally {
            graphics.dispose();
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        ImageIO.write(image, "png", file.toFile());
        System.out.println("chart in " + file.toAbsolutePath());
    }

    private static XYChart panel(String title, List<VariantResult> results, Function<VariantResult, Map<Long, Double>> maxBySecond,
                                 List<Scenario.Disturbance> disturbances, long measuredFromMillis) {
        XYChart chart = new XYChartBuilder().width(WIDTH).height(PANEL_HEIGHT)
            .title(title).xAxisTitle("seconds since the warm-up ended").yAxisTitle("ms").build();
        double fromSeconds = measuredFromMillis / 1000.0;
        double top = results.stream().flatMap(r -> maxBySecond.apply(r).entrySet().stream())
            .filter(second -> second.getKey() >= fromSeconds).mapToDouble(Map.Entry::getValue).max().orElse(1);
        if (!disturbances.isEmpty()) {
            List<Double> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (Scenario.Disturbance disturbance : disturbances) {
                double start = (disturbance.startMillis() - measuredFromMillis) / 1000.0;
                double end = (disturbance.endMillis() - measuredFromMillis) / 1000.0;
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
            for (Map.Entry<Long, Double> second : maxBySecond.apply(result).entrySet()) {
                double at = second.getKey() - fromSeconds;
                if (at >= 0) {
                    x.add(at);
                    y.add(second.getValue());
                }
            }
            if (!x.isEmpty()) {
                chart.addSeries(result.variant().label(), x, y).setMarker(SeriesMarkers.NONE);
            }
        }
        return chart;
    }
}
