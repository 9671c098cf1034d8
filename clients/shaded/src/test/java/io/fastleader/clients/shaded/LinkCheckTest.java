package io.fastleader.clients.shaded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/** {@link LinkCheck} on jars written here, against this JVM's classpath. */
class LinkCheckTest {

    @TempDir
    Path work;

    @Test
    void testReportsAMethodOfAClassTheClasspathLacks() throws IOException {
        Path jar = jar(Map.of("demo/Caller", classWithMethod("demo/Caller", "call", "()V", "demo/Absent", "run", "()V")));

        assertThat(LinkCheck.of(jar, getClass().getClassLoader()).unresolvedReferences())
            .containsExactly("demo/Caller.call()V: method demo/Absent.run()V");
    }

    @Test
    void testReportsAMethodTheClasspathsClassLacks() throws IOException {
        Path jar = jar(Map.of("demo/Caller", classWithMethod("demo/Caller", "call", "()V", "org/objectweb/asm/Type", "noSuchMethod", "()V")));

        assertThat(LinkCheck.of(jar, getClass().getClassLoader()).unresolvedReferences())
            .containsExactly("demo/Caller.call()V: method org/objectweb/asm/Type.noSuchMethod()V");
    }

    @Test
    void testSkipsAMethodNoCallerOnThisClasspathCouldName() throws IOException {
        Path jar = jar(Map.of("demo/Caller", classWithMethod("demo/Caller", "call", "(Ldemo/Absent;)V", "demo/Absent", "run", "()V")));

        assertThat(LinkCheck.of(jar, getClass().getClassLoader()).unresolvedReferences()).isEmpty();
    }

    @Test
    void testReportsAnAbstractMethodOfAnInterfaceLeftUnimplemented() throws IOException {
        ClassWriter writer = new ClassWriter(0);
        writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, "demo/Task", null, "java/lang/Object", new String[] {"java/lang/Runnable"});
        writer.visitEnd();
        Path jar = jar(Map.of("demo/Task", writer.toByteArray()));

        assertThat(LinkCheck.of(jar, getClass().getClassLoader()).unimplementedMethods()).containsExactly("demo/Task: run()V");
    }

    @Test
    void testSetsAsideRelocatedNettysUseOfAnOptionalDependencyTheClasspathLacks() throws IOException {
        String netty = LinkCheck.RELOCATED_NETTY + "handler/ssl/Probe";
        Path jar = jar(Map.of(netty, classWithMethod(netty, "probe", "()V", "org/conscrypt/Conscrypt", "isAvailable", "()Z")));

        assertThat(LinkCheck.of(jar, getClass().getClassLoader()).unresolvedReferences()).isEmpty();
    }

    @Test
    void testStillReportsRelocatedNettysUseOfAMemberMissingFromAPresentClass() throws IOException {
        String netty = LinkCheck.RELOCATED_NETTY + "handler/ssl/Probe";
        Path jar = jar(Map.of(netty, classWithMethod(netty, "probe", "()V", "org/objectweb/asm/Type", "noSuchMethod", "()V")));

        assertThat(LinkCheck.of(jar, getClass().getClassLoader()).unresolvedReferences())
            .containsExactly(netty + ".probe()V: method org/objectweb/asm/Type.noSuchMethod()V");
    }

    private static byte[] classWithMethod(String name, String method, String descriptor,
                                          String calledOwner, String calledName, String calledDescriptor) {
        ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
        writer.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, name, null, "java/lang/Object", null);
        MethodVisitor body = writer.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_STATIC, method, descriptor, null, null);
        body.visitCode();
        body.visitMethodInsn(Opcodes.INVOKESTATIC, calledOwner, calledName, calledDescriptor, false);
        body.visitInsn(Opcodes.RETURN);
        body.visitMaxs(0, 0);
        body.visitEnd();
        writer.visitEnd();
        return writer.toByteArray();
    }

    private Path jar(Map<String, byte[]> classes) throws IOException {
        Path jar = work.resolve("under-test.jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
            for (Map.Entry<String, byte[]> entry : classes.entrySet()) {
                out.putNextEntry(new JarEntry(entry.getKey() + ".class"));
                out.write(entry.getValue());
                out.closeEntry();
            }
        }
        return jar;
    }
}
