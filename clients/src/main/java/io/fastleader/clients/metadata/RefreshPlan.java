package io.fastleader.clients.metadata;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One Metadata request to send: the topics to describe, by the causes that asked for them.
 *
 * @param topicsByCause every cause in the request with the topics it asked for ({@link RefreshCause#PERIODIC}
 *                      asks for every topic in use)
 */
public record RefreshPlan(Map<RefreshCause, Set<String>> topicsByCause) {

    public RefreshPlan {
        topicsByCause = Map.copyOf(topicsByCause);
    }

    /** Why the request is sent. */
    public Set<RefreshCause> causes() {
        return topicsByCause.keySet();
    }

    /** The topics to describe, sorted; empty asks only for the brokers. */
    public Set<String> topics() {
        Set<String> topics = new TreeSet<>();
        topicsByCause.values().forEach(topics::addAll);
        return topics;
    }
}
