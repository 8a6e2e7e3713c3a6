package dev.ratelimiter.it.release;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A PATH that is this process's PATH less some programs: one directory of symbolic links to every executable the
 * PATH finds (the first of each name, as a shell would), except the named ones. Used to prove that a build needs
 * none of them; a program that looks elsewhere (limiter-bench's PostgreSQL cluster takes {@code initdb} from
 * {@code /usr/lib/postgresql/<version>/bin}) is not hidden, so such a build must not start it at all.
 */
final class PathWithout {

    private PathWithout() {
    }

    /**
     * Fills {@code directory} (created if missing) with the links and returns it, to be the whole PATH.
     *
     * @param hidden the programs' names, such as {@code redis-server}
     * @throws UncheckedIOException if a link cannot be made
     */
    static Path create(Path directory, Set<String> hidden) {
        String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
        try {
            Files.createDirectories(directory);
            for (String entry : path.split(File.pathSeparator)) {
                Path source = Path.of(entry.isEmpty() ? "." : entry);
                if (!Files.isDirectory(source)) {
                    continue;
                }
                List<Path> programs;
                try (Stream<Path> list = Files.list(source)) {
                    programs = list.filter(Files::isRegularFile).filter(Files::isExecutable).toList();
                }
                for (Path program : programs) {
                    Path link = directory.resolve(program.getFileName().toString());
                    if (!hidden.contains(program.getFileName().toString())
                            && !Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
                        Files.createSymbolicLink(link, program.toAbsolutePath());
                    }
                }
            }
            return directory;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
