package io.fastleader.broker;

import io.kroxylicious.proxy.filter.Filter;
import io.kroxylicious.proxy.filter.FilterFactory;
import io.kroxylicious.proxy.filter.FilterFactoryContext;
import io.kroxylicious.proxy.plugin.Plugin;

/**
 * Kroxylicious's entry point for the leader-hint filter: name it as the {@code type} of a
 * {@code filterDefinitions} entry ({@code io.fastleader.broker.LeaderHintFilterFactory}); its
 * optional {@code config} is a {@link LeaderHintConfig}.
 */
@Plugin(configType = LeaderHintConfig.class)
public final class LeaderHintFilterFactory implements FilterFactory<LeaderHintConfig, ClusterViews> {

    @Override
    public ClusterViews initialize(FilterFactoryContext context, LeaderHintConfig config) {
        return new ClusterViews(config == null ? LeaderHintConfig.defaults() : config);
    }

    @Override
    public Filter createFilter(FilterFactoryContext context, ClusterViews views) {
        return new LeaderHintFilter(views, context.filterDispatchExecutor());
    }
}
