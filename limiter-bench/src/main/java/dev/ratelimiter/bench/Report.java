package dev.ratelimiter.bench;

import jakarta.json.Json;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonWriter;
import jakarta.json.JsonWriterFactory;
import jakarta.json.stream.JsonGenerator;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a run's sections as {@code BENCHMARKS.md} (one table per section: figure, anchor, ratio, goal) and
 * {@code benchmarks.json} (the same figures with every detail, through JSON-P).
 */
final class Report {

    private Report() {
    }

    /**
     * @param directory where both files go
     * @param header    the run's context (machine, versions, command), Markdown
     */
    static void write(Path directory, String header, List<Section> sections, Map<String, String> environment)
            throws IOException {
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("BENCHMARKS.md"), markdown(header, sections), StandardCharsets.UTF_8);
        JsonWriterFactory factory = Json.createWriterFactory(Map.of(JsonGenerator.PRETTY_PRINTING, true));
        try (Writer out = Files.newBufferedWriter(directory.resolve("benchmarks.json"), StandardCharsets.UTF_8);
             JsonWriter json = factory.createWriter(out)) {
            json.writeObject(json(sections, environment));
        }
    }

    static String markdown(String header, List<Section> sections) {
        StringBuilder md = new StringBuilder(header).append('\n');
        goals(md, sections);
        for (Section section : sections) {
            md.append("\n## ").append(section.title()).append("\n\n").append(section.method()).append("\n\n");
            md.append("| measurement | figure | anchor | ratio | goal |\n|---|---:|---:|---:|---|\n");
            for (Row row : section.rows()) {
                md.append("| ").append(row.what())
                        .append(" | ").append(cell(row.figure()))
                        .append(" | ").append(row.anchor().map(Report::cell).orElse("—"))
                        .append(" | ").append(row.ratio().map(Report::ratio).orElse("—"))
                        .append(" | ").append(row.goal().map(goal -> goal + row.ratio()
                                .map(r -> goal.met(r) ? " met" : " **missed**").orElse("")
                                + goal.mustHoldText().map(must -> " (must " + must + row.ratio().flatMap(goal::held)
                                        .map(h -> h ? ": held)" : ": **missed**)").orElse(")")).orElse(""))
                                .orElse(""))
                        .append(" |\n");
            }
        }
        return md.toString();
    }

    /** The rows with a goal, gathered first, each with the issue that set it and the bound it must hold. */
    private static void goals(StringBuilder md, List<Section> sections) {
        StringBuilder rows = new StringBuilder();
        for (Section section : sections) {
            for (Row row : section.rows()) {
                row.goal().ifPresent(goal -> rows.append("| ").append(section.title()).append(" | ")
                        .append(row.what()).append(" | ").append(row.ratio().map(Report::ratio).orElse("—"))
                        .append(" | ").append(goal).append(" | ")
                        .append(row.ratio().map(r -> goal.met(r) ? "met" : "**missed**").orElse("—"))
                        .append(" | ").append(goal.mustHoldText().orElse("—")).append(" | ")
                        .append(row.ratio().flatMap(goal::held).map(h -> h ? "held" : "**missed**").orElse("—"))
                        .append(" | #").append(goal.issue()).append(" |\n"));
            }
        }
        if (!rows.isEmpty()) {
            md.append("\n## Goals\n\nEvery row below that has a goal, gathered from the sections that follow, with the "
                    + "bound it must hold where its issue set one apart from the goal, and the issue that set it.\n\n")
                    .append("| section | measurement | ratio | goal | | must hold | | issue |\n"
                            + "|---|---|---:|---|---|---|---|---|\n").append(rows);
        }
        Map<String, String> missed = new LinkedHashMap<>();
        for (Section section : sections) {
            for (Row row : section.rows()) {
                row.goal().filter(goal -> row.ratio().map(r -> !goal.met(r)).orElse(false))
                        .ifPresent(goal -> missed.putIfAbsent(goal.name() + " " + goal, goal.closing()));
            }
        }
        if (!missed.isEmpty()) {
            md.append("\nWhat would close each goal missed in this run:\n\n");
            missed.forEach((goal, closing) -> md.append("- **").append(goal).append("**: ").append(closing)
                    .append('\n'));
        }
    }

    private static String cell(Figure figure) {
        StringBuilder cell = new StringBuilder(number(figure.value())).append(' ').append(figure.unit());
        if (!figure.details().isEmpty()) {
            cell.append(" <small>(");
            boolean first = true;
            for (Map.Entry<String, Double> detail : figure.details().entrySet()) {
                cell.append(first ? "" : ", ").append(detail.getKey()).append(' ').append(number(detail.getValue()));
                first = false;
            }
            cell.append(")</small>");
        }
        return cell.toString();
    }

    private static String ratio(double ratio) {
        return String.format(Locale.ROOT, ratio < 0.1 ? "%.2g" : "%.2f", ratio);
    }

    /** Three significant digits at most, thin-space thousands: {@code 90 300}, {@code 37.2}, {@code 0.812}. */
    static String number(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        double magnitude = Math.abs(value);
        if (magnitude >= 1000) {
            long rounded = Math.round(value);
            int digits = String.valueOf(Math.abs(rounded)).length();
            long unit = (long) Math.pow(10, Math.max(0, digits - 3));
            return String.format(Locale.ROOT, "%,d", Math.round((double) rounded / unit) * unit).replace(',', ' ');
        }
        if (magnitude >= 100 || value == Math.rint(value)) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        return magnitude >= 10 ? String.format(Locale.ROOT, "%.1f", value)
                : String.format(Locale.ROOT, "%.3g", value);
    }

    private static JsonObject json(List<Section> sections, Map<String, String> environment) {
        JsonObjectBuilder env = Json.createObjectBuilder();
        environment.forEach(env::add);
        JsonArrayBuilder sectionArray = Json.createArrayBuilder();
        for (Section section : sections) {
            JsonArrayBuilder rows = Json.createArrayBuilder();
            for (Row row : section.rows()) {
                JsonObjectBuilder r = Json.createObjectBuilder().add("measurement", row.what())
                        .add("figure", figure(row.figure()));
                row.anchor().ifPresent(a -> r.add("anchor", figure(a)));
                row.ratio().ifPresent(ratio -> r.add("ratio", ratio));
                row.goal().ifPresent(goal -> {
                    JsonObjectBuilder g = Json.createObjectBuilder().add("ratio", goal.ratio())
                            .add("direction", goal.atLeast() ? "at least" : "at most").add("name", goal.name())
                            .add("issue", goal.issue()).add("ifMissed", goal.closing());
                    if (!Double.isNaN(goal.mustHold())) {
                        g.add("mustHold", goal.mustHold());
                    }
                    r.add("goal", g);
                    row.ratio().ifPresent(ratio -> r.add("goalMet", goal.met(ratio)));
                    row.ratio().flatMap(goal::held).ifPresent(held -> r.add("mustHoldHeld", held));
                });
                rows.add(r);
            }
            sectionArray.add(Json.createObjectBuilder().add("title", section.title())
                    .add("method", section.method()).add("rows", rows));
        }
        return Json.createObjectBuilder().add("environment", env).add("sections", sectionArray).build();
    }

    private static JsonObjectBuilder figure(Figure figure) {
        JsonObjectBuilder details = Json.createObjectBuilder();
        figure.details().forEach((name, value) -> {
            if (Double.isFinite(value)) {
                details.add(name, value);
            }
        });
        JsonObjectBuilder json = Json.createObjectBuilder().add("source", figure.source()).add("unit", figure.unit());
        if (Double.isFinite(figure.value())) {
            json.add("value", figure.value());
        }
        return json.add("details", details);
    }
}
