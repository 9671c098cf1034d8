package io.fastleader.it.cluster;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts a {@link KafkaTestCluster} for each parameter of that type, described by its
 * {@link Cluster} annotation, and closes it when the scope that asked for it ends: after the test
 * for a test method's parameter, after the class for a {@code @BeforeAll} method's parameter, after
 * every test of the JVM for a {@link Cluster#shared() shared} one.
 *
 * <p>A test or class whose cluster needs an {@link Execution} that cannot run here (containers
 * without Docker) is disabled with the reason instead of failing.
 *
 * <p>Child-JVM brokers started here run C1 only ({@link ClusterSpec#C1_ONLY}): a test's broker
 * lives for seconds to minutes and is restarted often, so getting up sooner beats peak speed.
 */
public final class KafkaClusterExtension implements ParameterResolver, ExecutionCondition {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(KafkaClusterExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == KafkaTestCluster.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Optional<Cluster> annotation = parameter.findAnnotation(Cluster.class);
        ClusterSpec spec = spec(annotation);
        if (annotation.map(Cluster::shared).orElse(false)) {
            // The root context's store closes it when every test of the JVM has run.
            return context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(spec, ClusterSpec::start, KafkaTestCluster.class);
        }
        KafkaTestCluster cluster = spec.start();
        // The store closes AutoCloseable values when its scope ends.
        context.getStore(NAMESPACE).put(parameter.getDeclaringExecutable() + "#" + parameter.getIndex(), cluster);
        return cluster;
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Stream<Method> startingClusters = context.getTestMethod().map(Stream::of).orElseGet(() -> context.getTestClass()
            .map(type -> Arrays.stream(type.getDeclaredMethods()).filter(method -> method.isAnnotationPresent(BeforeAll.class)))
            .orElseGet(Stream::empty));
        boolean needsContainers = startingClusters
            .flatMap(method -> Arrays.stream(method.getParameters()))
            .filter(parameter -> parameter.getType() == KafkaTestCluster.class)
            .anyMatch(parameter -> spec(Optional.ofNullable(parameter.getAnnotation(Cluster.class))).execution() == Execution.CONTAINER);
        if (needsContainers && !InJvmCluster.dockerAvailable()) {
            return ConditionEvaluationResult.disabled(InJvmCluster.NO_DOCKER);
        }
        return ConditionEvaluationResult.enabled("its clusters can run here");
    }

    static ClusterSpec spec(Optional<Cluster> annotation) {
        ClusterSpec.Builder builder = ClusterSpec.builder();
        annotation.ifPresent(cluster -> {
            builder.brokers(cluster.brokers()).release(cluster.release()).security(security(cluster));
            if (cluster.execution().length > 0) {
                builder.execution(cluster.execution()[0]);
            } else if (cluster.killable() && !Execution.fromSwitch().canKill()) {
                builder.execution(Execution.CHILD_JVM);
            }
            for (String setting : cluster.brokerConfig()) {
                int eq = setting.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("broker config '" + setting + "' is not key=value");
                }
                builder.brokerConfig(setting.substring(0, eq), setting.substring(eq + 1));
            }
        });
        if (builder.build().execution() == Execution.CHILD_JVM) {
            builder.brokerJvmOption(ClusterSpec.C1_ONLY);
        }
        return builder.build();
    }

    private static Security security(Cluster cluster) {
        String mechanism = cluster.saslMechanism().isEmpty() ? null : cluster.saslMechanism();
        boolean sasl = cluster.securityProtocol().startsWith("SASL_");
        return new Security(cluster.securityProtocol(), mechanism, sasl ? cluster.username() : null, sasl ? cluster.password() : null, Map.of(), null);
    }
}
