package io.fastleader.it.sim;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * The last requests received by every broker of a cluster, in the order they were dispatched, up
 * to a capacity (oldest dropped first); capacity 0 keeps none, for runs where logging would only
 * cost time.
 */
final class RequestLog {

    private final int capacity;
    private final Deque<LoggedRequest> entries = new ArrayDeque<>();

    RequestLog(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("a request log of capacity " + capacity);
        }
        this.capacity = capacity;
    }

    synchronized void add(LoggedRequest request) {
        if (capacity == 0) {
            return;
        }
        if (entries.size() == capacity) {
            entries.removeFirst();
        }
        entries.addLast(request);
    }

    /** The requests kept, oldest first. */
    synchronized List<LoggedRequest> entries() {
        return List.copyOf(entries);
    }

    synchronized void clear() {
        entries.clear();
    }
}
