package io.fastleader.benchmarks.producer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * A JDK Flight Recorder recording of one measured window, in this JVM, with the JDK's
 * {@code profile} settings (execution samples every 10 ms, allocation and lock events). It
 * records the whole JVM, brokers included; {@link HotFrames} picks out the client's threads.
 */
final class TurnRecording {

    private final Recording recording;
    private final Path file;

    private TurnRecording(Recording recording, Path file) {
        this.recording = recording;
        this.file = file;
    }

    /** Starts recording; {@link #stop} writes the recording to {@code file}, creating its directory. */
    static TurnRecording start(Path file) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Recording recording = new Recording(Configuration.getConfiguration("profile"));
            recording.setName(file.getFileName().toString());
            recording.start();
            return new TurnRecording(recording, file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a JDK Flight Recorder recording for " + file, e);
        } catch (ParseException e) {
            throw new IllegalStateException("this JDK's \"profile\" recording settings do not parse", e);
        }
    }

    /** Stops recording and writes the file. */
    Path stop() {
        try (recording) {
            recording.stop();
            recording.dump(file);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
