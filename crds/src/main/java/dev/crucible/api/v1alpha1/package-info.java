/**
 * The {@code crucible.dev/v1alpha1} API: RLEnvironment, Rollout, RolloutSnapshot and ProbeModel.
 * Types use public fields so a reader sees the schema at a glance; the CRD YAML in {@code crds/}
 * is generated from them, so every annotation here is part of the API contract.
 */
package dev.crucible.api.v1alpha1;
