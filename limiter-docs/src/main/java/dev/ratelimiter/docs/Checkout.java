package dev.ratelimiter.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The files of one checkout that {@link DocsCheck} reads: its Markdown pages and the sources that may cite them,
 * each listed in path order. Directories named {@code target}, {@code node_modules}, {@code .git}, {@code .idea} and
 * {@code .vscode} are skipped. Reads files only.
 */
final class Checkout {

    private static final Set<String> SKIPPED = Set.of("target", "node_modules", ".git", ".idea", ".vscode");

    private static final Set<String> SOURCE_EXTENSIONS =
            Set.of("java", "xml", "properties", "sql", "sh", "lua", "yml", "yaml");

    private final Path root;

    /** The checkout at {@code root}. */
    Checkout(Path root) {
        this.root = root.toAbsolutePath().normalize();
    }

    /** The checkout's directory, absolute and normalized. */
    Path root() {
        return root;
    }

    /** Every Markdown page of the checkout, in path order. */
    List<Path> markdownFiles() {
        return walk(file -> file.getFileName().toString().endsWith(".md"));
    }

    /**
     * Every source file whose comments may cite a page, in path order: {@code *.java}, {@code *.xml}
     * ({@code pom.xml} included), {@code *.properties}, {@code *.sql}, {@code *.sh}, {@code *.lua}, {@code *.yml},
     * {@code *.yaml}, the JSON files under {@code ops/}, and every file under {@code .ci/}.
     */
    List<Path> sourceFiles() {
        return walk(file -> {
            String name = file.getFileName().toString();
            String extension = name.substring(name.lastIndexOf('.') + 1);
            Path relative = root.relativize(file);
            return SOURCE_EXTENSIONS.contains(extension)
                    || (extension.equals("json") && relative.startsWith("ops"))
                    || relative.startsWith(".ci");
        });
    }

    private List<Path> walk(Predicate<Path> wanted) {
        List<Path> files = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                    return !dir.equals(root) && SKIPPED.contains(dir.getFileName().toString())
                            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    if (attributes.isRegularFile() && wanted.test(file)) {
                        files.add(file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        files.sort(Comparator.comparing(this::relative));
        return files;
    }

    /** {@code file}'s path from the checkout's root, with '/' between names. */
    String relative(Path file) {
        return root.relativize(file).toString().replace('\\', '/');
    }

    /** A file's text: UTF-8, else ISO-8859-1 (never a decoding error). */
    static String read(Path file) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            try {
                return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException notUtf8) {
                return new String(bytes, StandardCharsets.ISO_8859_1);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
