package dev.ratelimiter.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether the coverage matrix of a page (CONTRIBUTING.md#the-coverage-matrix) is true of the server tests under
 * {@code limiter-it/}, and whether it keeps its two promises. The section holds three tables, told apart by their
 * first header cell:
 * <ul>
 *   <li>{@code Scenarios | Written in | On every store | On every server}: the scenario sets, each with the class
 *   that writes it once ({@code -} for a set a server module writes itself), and whether it must run on each store
 *   ({@code memory}, {@code Valkey}, {@code PostgreSQL}) and on each server ({@code yes} or {@code no});</li>
 *   <li>{@code Test class | Server | Module | Scenarios | Store}: which class runs which set, on which server, from
 *   which module of {@code limiter-it}, on which stores (comma-separated; {@code -} for none, as a start that must
 *   fail);</li>
 *   <li>{@code Scenarios | Server | Why not}: a set that runs on every server but one, and the reason.</li>
 * </ul>
 * Problems reported: a listed class that is not in its module, or does not extend the class its set is written in;
 * a store the class's source (with its superclasses') never mentions; a test class ({@code *IT}, {@code *Test}, not
 * abstract) of a server module that is not listed; a module with no row; a set meant for every store without a
 * row on one store; a set meant for every server without a row on one server and no reason given. Reads files
 * only.
 */
final class CoverageMatrix {

    static final List<String> STORES = List.of("memory", "Valkey", "PostgreSQL");

    private static final Pattern EXTENDS = Pattern.compile("\\bclass\\s+(\\w+)(?:<[^>{]*>)?\\s+extends\\s+(\\w+)");
    private static final Pattern ABSTRACT = Pattern.compile("\\babstract\\s+class\\b");
    private static final String IT = "limiter-it/";
    private static final String TESTS = "/src/test/java/";

    private record ScenarioSet(String name, String writtenIn, boolean everyStore, boolean everyServer, int line) {
    }

    private record Run(String testClass, String server, String module, String set, List<String> stores, int line) {
    }

    private final Checkout checkout;
    private final Set<String> outside;

    /**
     * @param outside modules of {@code limiter-it} the matrix does not cover ({@code scenarios}, whose own tests
     *                check the operations queries; {@code release}, the release test)
     */
    CoverageMatrix(Checkout checkout, Set<String> outside) {
        this.checkout = checkout;
        this.outside = outside;
    }

    DocsCheck.Report check(Path page, String heading) {
        String where = checkout.relative(page);
        List<String> problems = new ArrayList<>();
        Map<String, ScenarioSet> sets = new LinkedHashMap<>();
        List<Run> runs = new ArrayList<>();
        Map<String, String> exceptions = new HashMap<>();
        for (MarkdownTable table : MarkdownTable.under(Checkout.read(page), heading)) {
            String first = table.header().isEmpty() ? "" : table.header().get(0);
            for (MarkdownTable.Row row : table.rows()) {
                List<String> cells = row.cells();
                if (first.equals("Test class") && cells.size() >= 5) {
                    runs.add(new Run(cells.get(0), cells.get(1), cells.get(2), cells.get(3), stores(cells.get(4)),
                            row.line()));
                } else if (first.equals("Scenarios") && table.header().size() == 4 && cells.size() >= 4) {
                    sets.put(cells.get(0), new ScenarioSet(cells.get(0), cells.get(1), yes(cells.get(2)), yes(cells.get(3)),
                            row.line()));
                } else if (first.equals("Scenarios") && cells.size() >= 3) {
                    exceptions.put(cells.get(0) + "|" + cells.get(1), cells.get(2));
                }
            }
        }
        if (sets.isEmpty() || runs.isEmpty()) {
            problems.add(where + ": no coverage matrix under \"## " + heading + "\" (its scenario sets and test "
                    + "classes tables)");
            return new DocsCheck.Report(0, problems);
        }

        Map<String, Path> sources = testSources();
        Map<String, Set<String>> listed = new HashMap<>();
        for (Run run : runs) {
            String at = where + ":" + run.line() + ": ";
            listed.computeIfAbsent(run.module(), module -> new TreeSet<>()).add(run.testClass());
            Path source = sources.get(run.module() + "/" + run.testClass());
            ScenarioSet set = sets.get(run.set());
            if (source == null) {
                problems.add(at + run.testClass() + " is not a test class of limiter-it/" + run.module());
                continue;
            }
            if (set == null) {
                problems.add(at + "the scenario set \"" + run.set() + "\" is not in the scenario sets table");
                continue;
            }
            List<String> lineage = lineage(run.testClass(), run.module(), sources);
            if (!set.writtenIn().equals("-") && !lineage.contains(set.writtenIn())) {
                problems.add(at + run.testClass() + " does not extend " + set.writtenIn() + " (it extends "
                        + lineage.subList(1, lineage.size()) + ")");
            }
            String text = lineageText(lineage, run.module(), sources);
            for (String store : run.stores()) {
                if (store.equals("-")) {
                    continue;
                }
                if (!STORES.contains(store)) {
                    problems.add(at + "unknown store \"" + store + "\" (one of " + STORES + ")");
                } else if (!store.equals("memory") && !mentions(text, store)) {
                    problems.add(at + run.testClass() + " claims " + store + " but its source never mentions it");
                }
            }
        }

        for (Map.Entry<String, Path> source : sources.entrySet()) {
            String module = source.getKey().substring(0, source.getKey().indexOf('/'));
            String name = source.getKey().substring(module.length() + 1);
            if (outside.contains(module)) {
                continue;
            }
            boolean test = name.endsWith("IT") || name.endsWith("Test");
            if (test && !ABSTRACT.matcher(Checkout.read(source.getValue())).find()
                    && !listed.getOrDefault(module, Set.of()).contains(name)) {
                problems.add(where + ": " + name + " (limiter-it/" + module + ") is not in the coverage matrix");
            }
        }
        for (String module : modules()) {
            if (!listed.containsKey(module)) {
                problems.add(where + ": the module limiter-it/" + module + " has no row in the coverage matrix");
            }
        }

        Set<String> servers = new LinkedHashSet<>();
        runs.forEach(run -> servers.add(run.server()));
        for (ScenarioSet set : sets.values()) {
            String at = where + ":" + set.line() + ": \"" + set.name() + "\" ";
            List<Run> ofSet = runs.stream().filter(run -> run.set().equals(set.name())).toList();
            if (set.everyStore()) {
                for (String store : STORES) {
                    if (ofSet.stream().noneMatch(run -> run.stores().contains(store))) {
                        problems.add(at + "runs on no server with the " + store + " store");
                    }
                }
            }
            if (set.everyServer()) {
                for (String server : servers) {
                    boolean runsThere = ofSet.stream().anyMatch(run -> run.server().equals(server));
                    String why = exceptions.getOrDefault(set.name() + "|" + server, "").strip();
                    if (!runsThere && why.isEmpty()) {
                        problems.add(at + "does not run on " + server + " and the matrix gives no reason");
                    }
                }
            }
        }
        return new DocsCheck.Report(runs.size() + sets.size(), problems);
    }

    /** {@code module/SimpleName} of every test source under {@code limiter-it/<module>/src/test/java}. */
    private Map<String, Path> testSources() {
        Map<String, Path> sources = new LinkedHashMap<>();
        for (Path file : checkout.sourceFiles()) {
            String path = checkout.relative(file);
            if (path.startsWith(IT) && path.endsWith(".java") && path.contains(TESTS)) {
                String module = path.substring(IT.length(), path.indexOf('/', IT.length()));
                String name = path.substring(path.lastIndexOf('/') + 1, path.length() - ".java".length());
                if (!outside.contains(module) || module.equals("scenarios")) {
                    sources.put(module + "/" + name, file);
                }
            }
        }
        return sources;
    }

    private Set<String> modules() {
        Set<String> modules = new TreeSet<>();
        for (Path file : checkout.sourceFiles()) {
            String path = checkout.relative(file);
            String[] parts = path.split("/");
            if (path.startsWith(IT) && parts.length == 3 && parts[2].equals("pom.xml")
                    && !outside.contains(parts[1])) {
                modules.add(parts[1]);
            }
        }
        return modules;
    }

    /** The class, then its superclasses as far as the module's and the scenarios' sources declare them. */
    private List<String> lineage(String testClass, String module, Map<String, Path> sources) {
        List<String> lineage = new ArrayList<>(List.of(testClass));
        String current = testClass;
        while (true) {
            Path source = source(current, module, sources);
            if (source == null) {
                return lineage;
            }
            Matcher declaration = EXTENDS.matcher(Checkout.read(source));
            String parent = null;
            while (declaration.find()) {
                if (declaration.group(1).equals(current)) {
                    parent = declaration.group(2);
                    break;
                }
            }
            if (parent == null || lineage.contains(parent)) {
                return lineage;
            }
            lineage.add(parent);
            current = parent;
        }
    }

    private String lineageText(List<String> lineage, String module, Map<String, Path> sources) {
        StringBuilder text = new StringBuilder();
        for (String name : lineage) {
            Path source = source(name, module, sources);
            if (source != null) {
                text.append(Checkout.read(source)).append('\n');
            }
        }
        return text.toString();
    }

    /**
     * The class's source: in the module, else in the scenarios, else in another module's test-jar (liberty-mp7
     * extends liberty's base class).
     */
    private static Path source(String name, String module, Map<String, Path> sources) {
        Path own = sources.get(module + "/" + name);
        if (own != null) {
            return own;
        }
        Path shared = sources.get("scenarios/" + name);
        if (shared != null) {
            return shared;
        }
        return sources.entrySet().stream().filter(entry -> entry.getKey().endsWith("/" + name))
                .map(Map.Entry::getValue).findFirst().orElse(null);
    }

    private static boolean mentions(String text, String store) {
        String lower = text.toLowerCase(Locale.ROOT);
        return store.equals("Valkey") ? lower.contains("valkey") || lower.contains("redis") : lower.contains("postgres");
    }

    private static List<String> stores(String cell) {
        List<String> stores = new ArrayList<>();
        for (String store : cell.split(",")) {
            if (!store.isBlank()) {
                stores.add(store.strip());
            }
        }
        return stores;
    }

    private static boolean yes(String cell) {
        return cell.strip().equalsIgnoreCase("yes");
    }
}
