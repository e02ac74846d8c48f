package dev.crucible.api.v1alpha1.environment;

import java.util.List;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.*;

/** Network of rollout pods: egress is denied unless allow-listed. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "!has(self.egress) || self.egress != 'allow-list' || (has(self.allow) && size(self.allow) > 0)",
        message = "egress allow-list needs at least one entry in allow", fieldPath = ".allow")
@ValidationRule(value = "!has(self.allow) || (has(self.egress) && self.egress == 'allow-list')",
        message = "allow applies only with egress: allow-list", fieldPath = ".allow")
public class NetworkSpec {
    @Default("deny")
    public EgressMode egress;

    @JsonPropertyDescription("Allowed destinations as CIDR[:port], e.g. 10.0.0.0/8:443.")
    @Size(max = 64)
    public List<@Pattern("^[0-9]{1,3}(\\.[0-9]{1,3}){3}/[0-9]{1,2}(:[0-9]{1,5})?$") String> allow;
}
