package io.fastleader.clients.shaded;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * What a jar's bytecode needs from the classpath it runs on, and what of it that classpath lacks:
 * every class, field and method the jar refers to outside itself (JDK members aside: the jar is
 * compiled for this JDK), and every abstract method of a supertype outside the jar that a concrete
 * class of the jar must implement (else an application that calls it gets an
 * {@link AbstractMethodError}).
 *
 * <p>A method whose own parameter or return types are missing from the classpath cannot be called
 * by an application built against it (it could not name them), so its body is not checked:
 * {@code subscribe(SubscriptionPattern)} is fine beside a release without {@code SubscriptionPattern}.
 */
final class LinkCheck {

    private static final int ASM = Opcodes.ASM9;
    /** Where the jar carries Netty, relocated. */
    static final String RELOCATED_NETTY = "io/fastleader/shaded/io/netty/";

    private final Map<String, byte[]> jar;
    private final ClassLoader classpath;
    private final Map<String, Optional<ClassShape>> shapes = new HashMap<>();

    private LinkCheck(Map<String, byte[]> jar, ClassLoader classpath) {
        this.jar = jar;
        this.classpath = classpath;
    }

    /** The check of {@code jar} against {@code classpath} (whose own copies of the jar's classes are ignored). */
    static LinkCheck of(Path jar, ClassLoader classpath) {
        return new LinkCheck(readClasses(jar), classpath);
    }

    /** Every reference of the jar that does not resolve on the classpath, as {@code "where: what"}, sorted. */
    Set<String> unresolvedReferences() {
        Set<String> problems = new TreeSet<>();
        for (Reference reference : references()) {
            if (!resolves(reference) && !isNettysOptionalDependency(reference.where(), reference.owner())) {
                problems.add(reference.toString());
            }
        }
        return problems;
    }

    /** Every abstract method a concrete class of the jar inherits and does not implement, as {@code "class: method"}. */
    Set<String> unimplementedMethods() {
        Set<String> problems = new TreeSet<>();
        for (String name : jar.keySet()) {
            ClassShape shape = shape(name).orElseThrow();
            if (shape.isAbstractOrInterface() || isNettysOptionalDependency(name, name)) {
                continue;
            }
            for (String method : inheritedAbstractMethods(shape)) {
                if (!implemented(shape, method)) {
                    problems.add(name + ": " + method);
                }
            }
        }
        return problems;
    }

    /** The names (internal form) of the classes the jar holds. */
    Set<String> classes() {
        return jar.keySet();
    }

    /** The classes outside the jar and the JDK that the jar's code uses, in internal form. */
    Set<String> externalClasses() {
        Set<String> external = new TreeSet<>();
        for (Reference reference : references()) {
            if (!jar.containsKey(reference.owner()) && !isJdk(reference.owner())) {
                external.add(reference.owner());
            }
        }
        return external;
    }

    /** What the jar's code uses: supertypes, and what every callable method's instructions name. */
    private List<Reference> references() {
        List<Reference> references = new ArrayList<>();
        for (Map.Entry<String, byte[]> entry : jar.entrySet()) {
            new ClassReader(entry.getValue()).accept(new ReferenceCollector(entry.getKey(), references), ClassReader.SKIP_FRAMES);
        }
        return references;
    }

    private boolean resolves(Reference reference) {
        String owner = reference.owner();
        return switch (reference.kind()) {
            case CLASS -> classExists(owner);
            case FIELD -> isJdk(owner) || declaredInHierarchy(owner, type -> type.fields().contains(reference.member()));
            case METHOD -> isJdk(owner) || declaredInHierarchy(owner, type -> type.methods().containsKey(reference.member()));
        };
    }

    private Set<String> inheritedAbstractMethods(ClassShape shape) {
        Set<String> abstractMethods = new LinkedHashSet<>();
        for (ClassShape supertype : supertypes(shape)) {
            supertype.methods().forEach((method, access) -> {
                if ((access & Opcodes.ACC_ABSTRACT) != 0) {
                    abstractMethods.add(method);
                }
            });
        }
        return abstractMethods;
    }

    /** Implemented by the class, a superclass, or a default method of one of its interfaces. */
    private boolean implemented(ClassShape shape, String method) {
        return Stream.concat(Stream.of(shape), supertypes(shape).stream()).anyMatch(type -> {
            Integer access = type.methods().get(method);
            return access != null && (access & Opcodes.ACC_ABSTRACT) == 0;
        });
    }

    /** Every superclass and superinterface of {@code shape} the classpath has, each once. */
    private List<ClassShape> supertypes(ClassShape shape) {
        List<ClassShape> supertypes = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        List<String> pending = new ArrayList<>(shape.supertypes());
        while (!pending.isEmpty()) {
            String name = pending.remove(pending.size() - 1);
            if (seen.add(name)) {
                shape(name).ifPresent(supertype -> {
                    supertypes.add(supertype);
                    pending.addAll(supertype.supertypes());
                });
            }
        }
        return supertypes;
    }

    /**
     * Netty, relocated into the jar, uses its optional dependencies (Conscrypt, BouncyCastle,
     * netty-tcnative, Log4j, BlockHound, ...) only once it has found them on the classpath, so what it
     * refers to of them is no link the jar needs: a use, from Netty's code, of a class neither the jar
     * nor the classpath has, or of one whose supertypes include such a class.
     */
    private boolean isNettysOptionalDependency(String where, String used) {
        return where.startsWith(RELOCATED_NETTY) && !hierarchyPresent(used);
    }

    /** Whether {@code name} and all of its supertypes are on the classpath or in the jar. */
    private boolean hierarchyPresent(String name) {
        if (isJdk(name)) {
            return true;
        }
        Optional<ClassShape> shape = shape(name);
        return shape.isPresent() && shape.get().supertypes().stream().allMatch(this::hierarchyPresent);
    }

    private boolean classExists(String name) {
        return isJdk(name) || shape(name).isPresent();
    }

    /**
     * Whether {@code owner} or one of its supertypes {@code declares} the member: what field and
     * method resolution look through (their order matters to which one the JVM picks, not to whether
     * there is one). False when the classpath lacks {@code owner}.
     */
    private boolean declaredInHierarchy(String owner, Predicate<ClassShape> declares) {
        Optional<ClassShape> shape = shape(owner);
        return shape.isPresent() && (declares.test(shape.get())
                || shape.get().supertypes().stream().anyMatch(supertype -> declaredInHierarchy(supertype, declares)));
    }

    private Optional<ClassShape> shape(String name) {
        return shapes.computeIfAbsent(name, key -> Optional.ofNullable(bytes(key)).map(ClassShape::read));
    }

    private byte[] bytes(String name) {
        byte[] own = jar.get(name);
        if (own != null) {
            return own;
        }
        try (InputStream in = classpath.getResourceAsStream(name + ".class")) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isJdk(String name) {
        return name.startsWith("java/") || name.startsWith("javax/") || name.startsWith("jdk/") || name.startsWith("sun/");
    }

    /** The class an array or class name denotes, null for arrays of primitives. */
    private static String elementClass(String internalName) {
        if (!internalName.startsWith("[")) {
            return internalName;
        }
        Type element = Type.getType(internalName).getElementType();
        return element.getSort() == Type.OBJECT ? element.getInternalName() : null;
    }

    private static Map<String, byte[]> readClasses(Path jar) {
        Map<String, byte[]> classes = new HashMap<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            for (JarEntry entry : Collections.list(file.entries())) {
                String name = entry.getName();
                if (name.endsWith(".class") && !name.startsWith("META-INF/")) {
                    try (InputStream in = file.getInputStream(entry)) {
                        classes.put(name.substring(0, name.length() - ".class".length()), in.readAllBytes());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + jar, e);
        }
        return classes;
    }

    /** What resolution needs of a class: its supertypes and its members, keyed {@code name + descriptor}. */
    private record ClassShape(int access, String superName, List<String> interfaces, Map<String, Integer> methods,
                              Set<String> fields) {

        static ClassShape read(byte[] bytes) {
            int[] access = new int[1];
            String[] superName = new String[1];
            List<String> interfaces = new ArrayList<>();
            Map<String, Integer> methods = new HashMap<>();
            Set<String> fields = new HashSet<>();
            new ClassReader(bytes).accept(new ClassVisitor(ASM) {
                @Override
                public void visit(int version, int classAccess, String name, String signature, String superclass,
                                  String[] implemented) {
                    access[0] = classAccess;
                    superName[0] = superclass;
                    interfaces.addAll(List.of(implemented == null ? new String[0] : implemented));
                }

                @Override
                public FieldVisitor visitField(int fieldAccess, String name, String descriptor, String signature, Object value) {
                    fields.add(name + descriptor);
                    return null;
                }

                @Override
                public MethodVisitor visitMethod(int methodAccess, String name, String descriptor, String signature,
                                                 String[] exceptions) {
                    methods.put(name + descriptor, methodAccess);
                    return null;
                }
            }, ClassReader.SKIP_CODE);
            return new ClassShape(access[0], superName[0], List.copyOf(interfaces), methods, fields);
        }

        boolean isInterface() {
            return (access & Opcodes.ACC_INTERFACE) != 0;
        }

        boolean isAbstractOrInterface() {
            return (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_INTERFACE)) != 0;
        }

        Collection<String> supertypes() {
            List<String> supertypes = new ArrayList<>(interfaces);
            if (superName != null) {
                supertypes.add(superName);
            }
            return supertypes;
        }
    }

    /** One use of a class, field or method from {@code where} (a class, or a method of one). */
    private record Reference(String where, Kind kind, String owner, String member) {
        enum Kind { CLASS, FIELD, METHOD }

        @Override
        public String toString() {
            return where + ": " + kind.name().toLowerCase(Locale.ROOT) + " " + owner + (member == null ? "" : "." + member);
        }
    }

    /** Records what one class of the jar uses, member by member. */
    private final class ReferenceCollector extends ClassVisitor {
        private final String owner;
        private final List<Reference> references;

        ReferenceCollector(String owner, List<Reference> references) {
            super(ASM);
            this.owner = owner;
            this.references = references;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
            if (superName != null) {
                useClass(owner, superName);
            }
            for (String implemented : interfaces) {
                useClass(owner, implemented);
            }
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
            String where = owner + "." + name + descriptor;
            if (!callableHere(descriptor)) {
                return null;
            }
            return new MethodVisitor(ASM) {
                @Override
                public void visitTypeInsn(int opcode, String type) {
                    useClass(where, type);
                }

                @Override
                public void visitMultiANewArrayInsn(String descriptor, int dimensions) {
                    useClass(where, descriptor);
                }

                @Override
                public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
                    if (type != null) {
                        useClass(where, type);
                    }
                }

                @Override
                public void visitFieldInsn(int opcode, String fieldOwner, String name, String descriptor) {
                    use(where, Reference.Kind.FIELD, fieldOwner, name + descriptor);
                }

                @Override
                public void visitMethodInsn(int opcode, String methodOwner, String name, String descriptor, boolean isInterface) {
                    use(where, Reference.Kind.METHOD, methodOwner, name + descriptor);
                }

                @Override
                public void visitLdcInsn(Object value) {
                    useConstant(where, value);
                }

                @Override
                public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrap, Object... arguments) {
                    useConstant(where, bootstrap);
                    for (Object argument : arguments) {
                        useConstant(where, argument);
                    }
                }
            };
        }

        private boolean callableHere(String descriptor) {
            Type method = Type.getMethodType(descriptor);
            List<Type> types = new ArrayList<>(List.of(method.getArgumentTypes()));
            types.add(method.getReturnType());
            return types.stream()
                .map(type -> type.getSort() == Type.ARRAY ? type.getElementType() : type)
                .filter(type -> type.getSort() == Type.OBJECT)
                .allMatch(type -> classExists(type.getInternalName()));
        }

        private void useConstant(String where, Object value) {
            if (value instanceof Type type && type.getSort() != Type.METHOD) {
                useClass(where, type.getSort() == Type.ARRAY ? type.getDescriptor() : type.getInternalName());
            } else if (value instanceof Handle handle) {
                Reference.Kind kind = handle.getTag() <= Opcodes.H_PUTSTATIC ? Reference.Kind.FIELD : Reference.Kind.METHOD;
                use(where, kind, handle.getOwner(), handle.getName() + handle.getDesc());
            }
        }

        /** A class by internal name or, for arrays, by descriptor. */
        private void useClass(String where, String name) {
            String element = elementClass(name);
            if (element != null) {
                references.add(new Reference(where, Reference.Kind.CLASS, element, null));
            }
        }

        private void use(String where, Reference.Kind kind, String memberOwner, String member) {
            // Members of arrays (clone, length) are the JVM's own.
            if (!memberOwner.startsWith("[")) {
                references.add(new Reference(where, kind, memberOwner, member));
            }
        }
    }
}
