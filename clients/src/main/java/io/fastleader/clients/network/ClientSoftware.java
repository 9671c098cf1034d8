package io.fastleader.clients.network;

/**
 * What this client calls itself: the software name and version it sends brokers in ApiVersions
 * (KIP-511) and reports in its {@code app-info} MBean.
 */
public final class ClientSoftware {

    /** The client's software name. */
    public static final String NAME = "fastleader";
    /** The client's software version. */
    public static final String VERSION = "0.1.0";

    private ClientSoftware() {
    }
}
