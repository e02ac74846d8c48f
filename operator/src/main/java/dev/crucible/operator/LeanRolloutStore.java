package dev.crucible.operator;

import dev.crucible.api.v1alpha1.Rollout;
import dev.crucible.controllers.cache.LeanItemStore;

/** The Rollout informer's lean cache, declared here so the operator SDK finds it in Quarkus' index. */
public class LeanRolloutStore extends LeanItemStore<Rollout> {
}
