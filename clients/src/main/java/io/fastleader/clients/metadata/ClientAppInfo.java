package io.fastleader.clients.metadata;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.regex.Pattern;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.Metrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fastleader.clients.network.ClientSoftware;

/**
 * A client's {@code app-info}, where kafka-clients keeps it: the MBean
 * {@code <prefix>:type=app-info,id=<client id>} with the attributes {@code Version},
 * {@code CommitId} and {@code StartTimeMs}, and the metrics {@code version}, {@code commit-id}
 * and {@code start-time-ms} in the group {@code app-info}. The version is fastleader's, the one it
 * names itself by to brokers ({@link ClientSoftware}); there is no commit id, which kafka-clients
 * reports as {@code unknown}.
 */
final class ClientAppInfo implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClientAppInfo.class);
    private static final String GROUP = "app-info";
    private static final String UNKNOWN = "unknown";
    /** What JMX takes in a property value unquoted; anything else is quoted, as kafka-clients quotes it. */
    private static final Pattern UNQUOTED = Pattern.compile("[\\w-%. \t]*");

    /** The MBean's attributes, named as kafka-clients' {@code AppInfo} names them. */
    public interface Attributes {
        /** The client's version. */
        String getVersion();

        /** The commit the client was built from. */
        String getCommitId();

        /** When the client was built, in epoch milliseconds. */
        Long getStartTimeMs();
    }

    private final String prefix;
    private final String clientId;
    private final ObjectName name;
    private final Metrics metrics;
    private final List<MetricName> metricNames;
    private final boolean registered;

    private ClientAppInfo(String prefix, String clientId, ObjectName name, Metrics metrics, long startTimeMs) {
        this.prefix = prefix;
        this.clientId = clientId;
        this.name = name;
        this.metrics = metrics;
        this.metricNames = List.of(metricName("version"), metricName("commit-id"), metricName("start-time-ms"));
        metrics.addMetric(metricNames.get(0), (Gauge<String>) (config, now) -> ClientSoftware.VERSION);
        metrics.addMetric(metricNames.get(1), (Gauge<String>) (config, now) -> UNKNOWN);
        metrics.addMetric(metricNames.get(2), (Gauge<Long>) (config, now) -> startTimeMs);
        this.registered = registerMBean(startTimeMs);
    }

    /**
     * Registers the client's app-info under {@code prefix} ({@code kafka.producer}, {@code kafka.consumer}).
     * Another client of the same id that registered first keeps the MBean, as with kafka-clients.
     */
    static ClientAppInfo register(String prefix, String clientId, Metrics metrics, long startTimeMs) {
        try {
            return new ClientAppInfo(prefix, clientId, new ObjectName(prefix + ":type=app-info,id=" + jmxValue(clientId)), metrics, startTimeMs);
        } catch (JMException e) {
            throw new IllegalArgumentException("client.id " + clientId + " makes no JMX name", e);
        }
    }

    private boolean registerMBean(long startTimeMs) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        Attributes attributes = new Attributes() {
            @Override
            public String getVersion() {
                return ClientSoftware.VERSION;
            }

            @Override
            public String getCommitId() {
                return UNKNOWN;
            }

            @Override
            public Long getStartTimeMs() {
                return startTimeMs;
            }
        };
        try {
            server.registerMBean(new StandardMBean(attributes, Attributes.class), name);
            return true;
        } catch (JMException e) {
            LOG.info("The app-info MBean {} already exists: another client has this client.id", name);
            return false;
        }
    }

    private MetricName metricName(String name) {
        return metrics.metricName(name, GROUP, "Metric indicating " + name);
    }

    static String jmxValue(String value) {
        return UNQUOTED.matcher(value).matches() ? value : ObjectName.quote(value);
    }

    /** Removes the MBean, if this client registered it, and the metrics; logs as kafka-clients does. */
    @Override
    public void close() {
        metricNames.forEach(metrics::removeMetric);
        try {
            if (registered) {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
            }
        } catch (JMException e) {
            LOG.warn("Error unregistering AppInfo mbean", e);
        } finally {
            LOG.info("App info {} for {} unregistered", prefix, clientId);
        }
    }
}
