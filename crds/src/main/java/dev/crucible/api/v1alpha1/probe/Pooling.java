package dev.crucible.api.v1alpha1.probe;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How a sequence of hidden states becomes one vector (PROPEL section 3). */
public enum Pooling {
    @JsonProperty("last_token") LAST_TOKEN,
    @JsonProperty("mean_full") MEAN_FULL,
    @JsonProperty("mean_last_50") MEAN_LAST_50,
    @JsonProperty("mean_last_half") MEAN_LAST_HALF,
    @JsonProperty("max") MAX,
    @JsonProperty("first_last_concat") FIRST_LAST_CONCAT,
    @JsonProperty("mean_std_concat") MEAN_STD_CONCAT
}
