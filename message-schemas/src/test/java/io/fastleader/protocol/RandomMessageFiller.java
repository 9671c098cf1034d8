package io.fastleader.protocol;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.message.FieldSpec;
import org.apache.kafka.message.MessageSpec;
import org.apache.kafka.message.StructSpec;

/**
 * Fills generated message objects with random values, driven by a schema rather than by the
 * classes, so the same values can be written into several generated classes at once (ours and
 * kafka-clients') and their bytes compared.
 *
 * <p>Only fields present at the requested version are set. Tagged fields are set or left at
 * their default according to the {@link TaggedFields} mode.
 */
final class RandomMessageFiller {

    /** What to do with tagged fields. */
    enum TaggedFields { ALL, NONE, RANDOM }

    private static final int MAX_ELEMENTS = 3;

    private final MessageSpec spec;
    private final Map<String, StructSpec> commonStructs;
    private final short version;
    private final TaggedFields tagged;
    private final Random random;

    RandomMessageFiller(MessageSpec spec, short version, TaggedFields tagged, long seed) {
        this.spec = spec;
        this.commonStructs = spec.commonStructs().stream()
            .collect(Collectors.toMap(StructSpec::name, Function.identity()));
        this.version = version;
        this.tagged = tagged;
        this.random = new Random(seed);
    }

    /**
     * Sets the same random field values on every target. Each target is a fresh instance of a
     * generated top-level class for {@code spec}, from whichever package.
     */
    void fill(List<Object> targets) {
        fillStruct(spec.fields(), targets);
    }

    private void fillStruct(List<FieldSpec> fields, List<Object> targets) {
        for (FieldSpec field : fields) {
            if (!field.versions().contains(version) || skipTagged(field)) {
                continue;
            }
            List<Object> values = valuesFor(field, targets);
            for (int i = 0; i < targets.size(); i++) {
                set(targets.get(i), field.name(), values.get(i));
            }
        }
    }

    private boolean skipTagged(FieldSpec field) {
        if (!field.taggedVersions().contains(version)) {
            return false;
        }
        return switch (tagged) {
            case ALL -> false;
            case NONE -> true;
            case RANDOM -> random.nextBoolean();
        };
    }

    /** One value per target: primitives are shared, structs are built once per target class. */
    private List<Object> valuesFor(FieldSpec field, List<Object> targets) {
        if (field.nullableVersions().contains(version) && random.nextInt(4) == 0) {
            return nCopies(null, targets.size());
        }
        String type = field.typeString();
        if (type.startsWith("[]")) {
            return arrayValues(field, type.substring(2), targets);
        }
        if (isStructType(type)) {
            List<Object> structs = newStructs(type, targets);
            fillStruct(structFields(field, type), structs);
            return structs;
        }
        return nCopies(scalar(type, field), targets.size());
    }

    private List<Object> arrayValues(FieldSpec field, String elementType, List<Object> targets) {
        int size = random.nextInt(MAX_ELEMENTS + 1);
        List<Object> arrays = new ArrayList<>();
        for (Object target : targets) {
            arrays.add(newCollection(target, field.name()));
        }
        for (int n = 0; n < size; n++) {
            if (isStructType(elementType)) {
                List<Object> elements = newStructs(elementType, targets);
                fillStruct(structFields(field, elementType), elements);
                for (int i = 0; i < targets.size(); i++) {
                    add(arrays.get(i), elements.get(i));
                }
            } else {
                Object element = scalar(elementType, field);
                arrays.forEach(array -> add(array, element));
            }
        }
        return arrays;
    }

    private List<FieldSpec> structFields(FieldSpec field, String structName) {
        if (!field.fields().isEmpty()) {
            return field.fields();
        }
        StructSpec common = commonStructs.get(structName);
        if (common == null) {
            throw new IllegalStateException("no struct " + structName + " in " + spec.name());
        }
        return common.fields();
    }

    private Object scalar(String type, FieldSpec field) {
        return switch (type) {
            case "bool" -> random.nextBoolean();
            case "int8" -> (byte) random.nextInt();
            case "int16" -> (short) random.nextInt();
            case "uint16" -> random.nextInt(1 << 16);
            case "int32" -> random.nextInt();
            case "uint32" -> random.nextLong() & 0xFFFF_FFFFL;
            case "int64" -> random.nextLong();
            case "float64" -> random.nextDouble() * 1e6;
            case "string" -> randomString();
            case "uuid" -> new Uuid(random.nextLong(), random.nextLong());
            case "bytes" -> field.zeroCopy() ? ByteBuffer.wrap(randomBytes()) : randomBytes();
            case "records" -> randomRecords();
            default -> throw new IllegalArgumentException("unhandled type " + type + " of " + field.name());
        };
    }

    private String randomString() {
        // Multi-byte characters make sure lengths are counted in bytes, not chars.
        String[] alphabet = {"a", "b", "z", "0", "-", "_", ".", "é", "日"};
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(12);
        for (int i = 0; i < length; i++) {
            s.append(alphabet[random.nextInt(alphabet.length)]);
        }
        return s.toString();
    }

    private byte[] randomBytes() {
        byte[] bytes = new byte[random.nextInt(16)];
        random.nextBytes(bytes);
        return bytes;
    }

    private MemoryRecords randomRecords() {
        return MemoryRecords.withRecords(Compression.NONE,
            new SimpleRecord(random.nextLong() & Long.MAX_VALUE, randomBytes(), randomBytes()));
    }

    private static boolean isStructType(String type) {
        return Character.isUpperCase(type.charAt(0));
    }

    private static List<Object> newStructs(String structName, List<Object> targets) {
        List<Object> structs = new ArrayList<>();
        for (Object target : targets) {
            structs.add(instantiate(topLevelClass(target).getName() + "$" + structName));
        }
        return structs;
    }

    private static Class<?> topLevelClass(Object target) {
        Class<?> c = target.getClass();
        while (c.getEnclosingClass() != null) {
            c = c.getEnclosingClass();
        }
        return c;
    }

    /** A fresh collection of the exact type the setter takes: a List, or a generated keyed collection. */
    private static Object newCollection(Object target, String fieldName) {
        Class<?> type = setter(target, fieldName).getParameterTypes()[0];
        return type.isAssignableFrom(ArrayList.class) ? new ArrayList<>() : instantiate(type.getName());
    }

    @SuppressWarnings("unchecked")
    private static void add(Object collection, Object element) {
        ((Collection<Object>) collection).add(element);
    }

    private static void set(Object target, String fieldName, Object value) {
        try {
            setter(target, fieldName).invoke(target, value);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot set " + fieldName + " on " + target.getClass().getName(), e);
        }
    }

    private static Method setter(Object target, String fieldName) {
        // Kafka's generator capitalizes the setter's name: CreateTopics' timeoutMs field is set by setTimeoutMs.
        String name = "set" + Character.toUpperCase(fieldName.charAt(0)) + fieldName.substring(1);
        for (Method m : target.getClass().getMethods()) {
            if (m.getName().equals(name) && m.getParameterCount() == 1) {
                return m;
            }
        }
        throw new IllegalStateException(target.getClass().getName() + " has no field " + fieldName);
    }

    private static Object instantiate(String className) {
        try {
            return Class.forName(className).getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot instantiate " + className, e);
        }
    }

    private static List<Object> nCopies(Object value, int n) {
        List<Object> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            values.add(value);
        }
        return values;
    }
}
