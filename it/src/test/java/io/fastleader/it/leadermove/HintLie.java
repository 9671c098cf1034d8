package io.fastleader.it.leadermove;

/**
 * What {@link HintRewritingProxy} makes of the {@code CurrentLeader} hint a broker put in a
 * refusal. Each lie is one the KIP-951 rules tell a client to survive: it must not regress a
 * leader, not loop at round-trip speed, and find the real leader by Metadata.
 */
enum HintLie {
    /** The broker's own hint, untouched: the control case. */
    NONE {
        @Override
        Hint rewrite(Hint real, Context context) {
            return real;
        }
    },
    /** A third broker, at the oldest epoch Metadata told the refused client: not newer than what it knows. */
    EQUAL_EPOCH {
        @Override
        Hint rewrite(Hint real, Context context) {
            return new Hint(context.thirdBroker(), context.toldEpoch());
        }
    },
    /** A third broker, one epoch older than the oldest Metadata told the refused client. */
    OLDER_EPOCH {
        @Override
        Hint rewrite(Hint real, Context context) {
            return new Hint(context.thirdBroker(), context.toldEpoch() - 1);
        }
    },
    /** A broker id the cluster does not have, at the real new epoch, with no endpoint for it in the response. */
    LEADER_WITHOUT_ENDPOINT {
        @Override
        Hint rewrite(Hint real, Context context) {
            return new Hint(MISSING_BROKER, real.leaderEpoch());
        }
    },
    /** A broker id the cluster does not have, at the real new epoch, with an endpoint where nothing listens. */
    REFUSING_ENDPOINT {
        @Override
        Hint rewrite(Hint real, Context context) {
            return new Hint(MISSING_BROKER, real.leaderEpoch());
        }

        @Override
        boolean addsRefusingEndpoint() {
            return true;
        }
    },
    /** The broker that refused, at the real new epoch: it names itself as the leader it just said it is not. */
    POINTS_BACK {
        @Override
        Hint rewrite(Hint real, Context context) {
            return new Hint(context.responder(), real.leaderEpoch());
        }
    };

    /** The node id the endpoint-less and refusing lies name: no broker of a test cluster has it. */
    static final int MISSING_BROKER = 1000;

    /** The hint the client gets instead of {@code real}, a complete hint from a real broker. */
    abstract Hint rewrite(Hint real, Context context);

    /** Whether the response also gets a {@code NodeEndpoints} entry for {@link #MISSING_BROKER} at a port nothing listens on. */
    boolean addsRefusingEndpoint() {
        return false;
    }

    /** A {@code CurrentLeader}: leader id and leader epoch. */
    record Hint(int leaderId, int leaderEpoch) {
    }

    /**
     * What the proxy knows around one refusal.
     *
     * @param responder   the broker that refused
     * @param toldEpoch   the partition's oldest leader epoch in the Metadata answers the proxy passed to the refused client
     * @param thirdBroker a broker that is neither the responder nor the real new leader
     */
    record Context(int responder, int toldEpoch, int thirdBroker) {
    }
}
