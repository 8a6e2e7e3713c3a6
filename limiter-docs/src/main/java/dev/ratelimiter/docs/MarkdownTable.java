package dev.ratelimiter.docs;

import org.commonmark.ext.gfm.tables.TableBlock;
import org.commonmark.ext.gfm.tables.TableCell;
import org.commonmark.ext.gfm.tables.TableHead;
import org.commonmark.ext.gfm.tables.TableRow;
import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.Heading;
import org.commonmark.node.Node;
import org.commonmark.parser.IncludeSourceSpans;
import org.commonmark.parser.Parser;

import java.util.ArrayList;
import java.util.List;

/**
 * A GitHub table of a Markdown page, read as text: its header's cells and its rows' cells, each cell's text without
 * markup (a code span's backticks dropped, its text kept).
 *
 * @param header the header row's cells, in column order
 * @param rows   the body's rows, in page order
 */
record MarkdownTable(List<String> header, List<Row> rows) {

    private static final Parser PARSER = Parser.builder()
            .extensions(List.of(TablesExtension.create()))
            .includeSourceSpans(IncludeSourceSpans.BLOCKS)
            .build();

    /**
     * One row of the body.
     *
     * @param cells its cells' text, in column order
     * @param line  the 1-based line of the page it is on
     */
    record Row(List<String> cells, int line) {
    }

    /**
     * The tables under the level-2 heading whose text is {@code heading}, up to the next level-2 heading, in page
     * order; none when the page has no such heading.
     */
    static List<MarkdownTable> under(String markdown, String heading) {
        List<MarkdownTable> tables = new ArrayList<>();
        boolean inside = false;
        for (Node node = PARSER.parse(markdown).getFirstChild(); node != null; node = node.getNext()) {
            if (node instanceof Heading title && title.getLevel() == 2) {
                inside = MarkdownPage.text(title).equals(heading);
            } else if (inside && node instanceof TableBlock table) {
                tables.add(read(table));
            }
        }
        return tables;
    }

    private static MarkdownTable read(TableBlock table) {
        List<String> header = List.of();
        List<Row> rows = new ArrayList<>();
        for (Node part = table.getFirstChild(); part != null; part = part.getNext()) {
            for (Node row = part.getFirstChild(); row != null; row = row.getNext()) {
                if (row instanceof TableRow) {
                    List<String> cells = new ArrayList<>();
                    for (Node cell = row.getFirstChild(); cell != null; cell = cell.getNext()) {
                        if (cell instanceof TableCell) {
                            cells.add(MarkdownPage.text(cell));
                        }
                    }
                    if (part instanceof TableHead) {
                        header = List.copyOf(cells);
                    } else {
                        rows.add(new Row(List.copyOf(cells), MarkdownPage.line(row)));
                    }
                }
            }
        }
        return new MarkdownTable(header, rows);
    }
}
