package dev.crucible.api.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.crucible.api.validation.CrdSchemas;
import java.io.InputStream;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Each kind of breaking change is caught on the real Rollout CRD; widening changes pass. */
class CrdCompatibilityTest {

    private static JsonNode rolloutCrd() throws Exception {
        try (InputStream in = CrdSchemas.class.getClassLoader()
                .getResourceAsStream(CrdSchemas.RESOURCE_DIR + "rollouts.crucible.dev-v1.yml")) {
            return new YAMLMapper().readTree(in);
        }
    }

    private static ObjectNode spec(JsonNode crd) {
        return (ObjectNode) crd.at("/spec/versions/0/schema/openAPIV3Schema/properties/spec");
    }

    private static String changed(Consumer<ObjectNode> edit) throws Exception {
        JsonNode before = rolloutCrd();
        JsonNode after = before.deepCopy();
        edit.accept(spec(after));
        return String.join("\n", CrdCompatibility.breakingChanges(before, after));
    }

    @Test
    void identicalIsCompatible() throws Exception {
        assertThat(changed(s -> { })).isEmpty();
    }

    @Test
    void removedFieldIsBreaking() throws Exception {
        assertThat(changed(s -> ((ObjectNode) s.get("properties")).remove("limits"))).contains("spec.limits: field removed");
    }

    @Test
    void typeChangeIsBreaking() throws Exception {
        assertThat(changed(s -> ((ObjectNode) s.at("/properties/mode")).put("type", "integer")))
                .contains("spec.mode: type changed");
    }

    @Test
    void newRequiredFieldIsBreaking() throws Exception {
        assertThat(changed(s -> s.withArray("required").add("group"))).contains("spec.group: newly required");
    }

    @Test
    void removedEnumValueIsBreaking() throws Exception {
        assertThat(changed(s -> {
            ObjectNode mode = (ObjectNode) s.at("/properties/mode");
            mode.putArray("enum").add("embedded");
        })).contains("enum value interactive removed");
    }

    @Test
    void tightenedBoundIsBreakingAndWidenedIsNot() throws Exception {
        assertThat(changed(s -> ((ObjectNode) s.at("/properties/limits/properties/maxTurns")).put("maximum", 10)))
                .contains("maximum lowered to 10");
        assertThat(changed(s -> ((ObjectNode) s.at("/properties/limits/properties/maxTurns")).put("maximum", 1e9)))
                .isEmpty();
    }

    @Test
    void newCelRuleIsBreaking() throws Exception {
        assertThat(changed(s -> s.withArray("x-kubernetes-validations").addObject().put("rule", "has(self.group)")))
                .contains("validation rule added: has(self.group)");
    }

    @Test
    void removedVersionIsBreaking() throws Exception {
        JsonNode before = rolloutCrd();
        ObjectNode after = before.deepCopy();
        ((ObjectNode) after.at("/spec/versions/0")).put("name", "v1beta1");
        assertThat(CrdCompatibility.breakingChanges(before, after)).contains("version v1alpha1 removed");
    }
}
