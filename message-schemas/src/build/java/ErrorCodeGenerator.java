import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.AppInfoParser;

/**
 * Writes {@code io.fastleader.protocol.ErrorCode}, fastleader's table of the protocol's error codes,
 * from the {@code Errors} of the kafka-clients on the classpath: per error its name, code, default
 * message and exception class with that class's superclasses. Run at {@code generate-sources} as a
 * single-file program: {@code java -cp <kafka-clients> ErrorCodeGenerator.java <source root>}.
 *
 * <p>Exception classes are written by name, never as class literals, so the table loads beside any
 * kafka-clients release; {@code ErrorExceptions} turns the names into the application's exceptions
 * at run time.
 */
public final class ErrorCodeGenerator {

    private static final String PACKAGE = "io.fastleader.protocol";

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: ErrorCodeGenerator <generated source root>");
        }
        Path file = Path.of(args[0], PACKAGE.replace('.', '/'), "ErrorCode.java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source());
    }

    private static String source() {
        String constants = List.of(Errors.values()).stream()
                .map(ErrorCodeGenerator::constant)
                .collect(Collectors.joining(",\n", "", ";"));
        return TEMPLATE.replace("@VERSION@", AppInfoParser.getVersion()).replace("@CONSTANTS@", constants);
    }

    /** One constant: {@code NAME((short) code, "message", "exception class", "its superclass", ...)}. */
    private static String constant(Errors error) {
        List<String> arguments = new ArrayList<>();
        arguments.add("(short) " + error.code());
        arguments.add(literal(error.message()));
        ApiException exception = error.exception();
        if (exception != null) {
            for (Class<?> type = exception.getClass(); type != RuntimeException.class; type = type.getSuperclass()) {
                arguments.add(literal(type.getName()));
            }
        }
        return "    " + error.name() + "(" + String.join(",\n            ", arguments) + ")";
    }

    private static String literal(String text) {
        if (text.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException("A control character in " + text);
        }
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    private static final String TEMPLATE = """
            package io.fastleader.protocol;

            import java.util.List;
            import java.util.Map;
            import java.util.function.Function;
            import java.util.stream.Collectors;
            import java.util.stream.Stream;

            import org.apache.kafka.common.KafkaException;
            import org.apache.kafka.common.errors.ApiException;
            import org.apache.kafka.common.errors.RetriableException;
            import org.slf4j.LoggerFactory;

            /**
             * The protocol's error codes, as kafka-clients @VERSION@ defines them. Generated at build time from its
             * {@code org.apache.kafka.common.protocol.Errors} by {@code message-schemas/src/build/java/ErrorCodeGenerator.java};
             * do not edit.
             *
             * <p>Unlike {@code Errors}, an error names its exception class rather than loading it: {@link #exception(String)}
             * raises the application's own kafka-clients class of that name, or the nearest superclass its release has
             * (see {@code ErrorExceptions}), so this table loads beside any kafka-clients release.
             */
            public enum ErrorCode {
            @CONSTANTS@

                private static final Map<Short, ErrorCode> BY_CODE = Stream.of(values())
                        .collect(Collectors.toUnmodifiableMap(ErrorCode::code, Function.identity()));

                private final short code;
                private final String message;
                private final List<String> exceptionClassNames;
                private final boolean retriable;

                ErrorCode(short code, String message, String... exceptionClassNames) {
                    this.code = code;
                    this.message = message;
                    this.exceptionClassNames = List.of(exceptionClassNames);
                    this.retriable = exceptionIs(RetriableException.class);
                }

                /**
                 * The error with this code, or {@link #UNKNOWN_SERVER_ERROR} for a code kafka-clients @VERSION@ does not
                 * know (a newer broker's), logged as {@code Errors.forCode} does.
                 */
                public static ErrorCode forCode(short code) {
                    ErrorCode error = BY_CODE.get(code);
                    if (error == null) {
                        LoggerFactory.getLogger(ErrorCode.class).warn("Unexpected error code: {}.", code);
                        return UNKNOWN_SERVER_ERROR;
                    }
                    return error;
                }

                /** The code on the wire. */
                public short code() {
                    return code;
                }

                /** The default message of the error's exception; the name for {@link #NONE}. */
                public String message() {
                    return message;
                }

                /**
                 * The error's exception class, then its superclasses up to {@code KafkaException}, by name as in
                 * kafka-clients @VERSION@; empty for {@link #NONE}.
                 */
                public List<String> exceptionClassNames() {
                    return exceptionClassNames;
                }

                /** Whether the error's exception is a {@code type} in kafka-clients @VERSION@ (compared by class name). */
                public boolean exceptionIs(Class<? extends KafkaException> type) {
                    return exceptionClassNames.contains(type.getName());
                }

                /** Whether the error's exception is a {@link RetriableException}: retrying the request may succeed. */
                public boolean isRetriable() {
                    return retriable;
                }

                /** The application's exception for the error with its default message; null for {@link #NONE}. */
                public ApiException exception() {
                    return exception(null);
                }

                /**
                 * The application's exception for the error; null for {@link #NONE}.
                 *
                 * @param message the exception's message; null for the error's default {@link #message()}
                 */
                public ApiException exception(String message) {
                    return ErrorExceptions.APPLICATION.create(this, message != null ? message : this.message);
                }
            }
            """;
}
