package dev.ratelimiter.docs;

import org.commonmark.ext.gfm.tables.TablesExtension;
import org.commonmark.node.AbstractVisitor;
import org.commonmark.node.Code;
import org.commonmark.node.Heading;
import org.commonmark.node.Image;
import org.commonmark.node.Link;
import org.commonmark.node.ListBlock;
import org.commonmark.node.Node;
import org.commonmark.node.SourceSpan;
import org.commonmark.node.Text;
import org.commonmark.parser.IncludeSourceSpans;
import org.commonmark.parser.Parser;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One Markdown page as GitHub reads it (CommonMark with GitHub's tables): the anchors of its headings and the
 * destinations of its links and images, each with its line. A link in a code block or code span is text, not a
 * link; a reference-style link is read with its definition's destination.
 *
 * @param anchors  the anchors of its headings, in page order (see {@link GitHubAnchors})
 * @param links    its links and images, in page order
 * @param sections the anchors of its level-2 headings ({@code ## }), in page order
 * @param contents the in-page links ({@code #anchor}) of its first list before its first level-2 heading, in
 *                 order: the page's table of contents, empty when it has none
 */
public record MarkdownPage(Set<String> anchors, List<Destination> links, List<String> sections,
                           List<String> contents) {

    private static final Parser PARSER = Parser.builder()
            .extensions(List.of(TablesExtension.create()))
            .includeSourceSpans(IncludeSourceSpans.BLOCKS_AND_INLINES)
            .build();

    /**
     * The destination of one link or image.
     *
     * @param destination as written, after the parser's unescaping
     * @param line        1-based line of the page where the link starts
     */
    public record Destination(String destination, int line) {
    }

    /** Reads a page's text. */
    public static MarkdownPage parse(String markdown) {
        Node document = PARSER.parse(markdown);
        Set<String> anchors = new LinkedHashSet<>();
        List<Destination> links = new ArrayList<>();
        List<String> sections = new ArrayList<>();
        GitHubAnchors ids = new GitHubAnchors();
        document.accept(new AbstractVisitor() {
            @Override
            public void visit(Heading heading) {
                String anchor = ids.next(text(heading));
                anchors.add(anchor);
                if (heading.getLevel() == 2) {
                    sections.add(anchor);
                }
                visitChildren(heading);
            }

            @Override
            public void visit(Link link) {
                links.add(new Destination(link.getDestination(), line(link)));
                visitChildren(link);
            }

            @Override
            public void visit(Image image) {
                links.add(new Destination(image.getDestination(), line(image)));
                visitChildren(image);
            }
        });
        return new MarkdownPage(anchors, links, sections, contents(document));
    }

    /**
     * One code span of a page ({@code `FixedWindows`}), outside code blocks.
     *
     * @param code the span's text, as the parser reads it
     * @param line 1-based line of the page where the span starts
     */
    public record CodeSpan(String code, int line) {
    }

    /** The code spans of a page's text, in page order; code blocks are not read. */
    public static List<CodeSpan> codeSpans(String markdown) {
        List<CodeSpan> spans = new ArrayList<>();
        PARSER.parse(markdown).accept(new AbstractVisitor() {
            @Override
            public void visit(Code code) {
                spans.add(new CodeSpan(code.getLiteral(), line(code)));
            }
        });
        return spans;
    }

    /** The in-page links of the first list that comes before the first level-2 heading. */
    private static List<String> contents(Node document) {
        for (Node block = document.getFirstChild(); block != null; block = block.getNext()) {
            if (block instanceof Heading heading && heading.getLevel() == 2) {
                break;
            }
            if (block instanceof ListBlock) {
                List<String> entries = new ArrayList<>();
                block.accept(new AbstractVisitor() {
                    @Override
                    public void visit(Link link) {
                        if (link.getDestination().startsWith("#")) {
                            entries.add(link.getDestination().substring(1));
                        }
                    }
                });
                return entries;
            }
        }
        return List.of();
    }

    /**
     * A heading's or a table cell's text as GitHub renders it: its text and code spans, without markup, links' text
     * included.
     */
    static String text(Node heading) {
        StringBuilder text = new StringBuilder();
        heading.accept(new AbstractVisitor() {
            @Override
            public void visit(Text node) {
                text.append(node.getLiteral());
            }

            @Override
            public void visit(Code node) {
                text.append(node.getLiteral());
            }

            @Override
            public void visit(Image node) {
                // an <img> has no text of its own: its alt text is not part of the anchor
            }
        });
        return text.toString().strip();
    }

    /** The node's first line, or its nearest enclosing block's where the parser kept no span for it. */
    static int line(Node node) {
        for (Node at = node; at != null; at = at.getParent()) {
            List<SourceSpan> spans = at.getSourceSpans();
            if (!spans.isEmpty()) {
                return spans.get(0).getLineIndex() + 1;
            }
        }
        return 0;
    }
}
