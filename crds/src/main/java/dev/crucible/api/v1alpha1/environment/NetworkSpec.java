package dev.crucible.api.v1alpha1.environment;

import dev.crucible.contract.SpecDefaults;
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
    @Default(SpecDefaults.EGRESS)
    public EgressMode egress;

    @JsonPropertyDescription("Allowed destinations as CIDR[:port], e.g. 10.0.0.0/8:443.")
    @Size(max = 64)
    public List<@Pattern(CIDR_PORT) String> allow;

    private static final String OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
    private static final String PORT = "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})";
    /** An IPv4 CIDR (octets 0-255 without leading zeros, prefix 0-32) and an optional port 1-65535. */
    public static final String CIDR_PORT = "^" + OCTET + "(\\." + OCTET + "){3}/(3[0-2]|[12][0-9]|[0-9])(:" + PORT + ")?$";
}
