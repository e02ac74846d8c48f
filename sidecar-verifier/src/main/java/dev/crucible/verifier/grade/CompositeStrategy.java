package dev.crucible.verifier.grade;

import dev.crucible.contract.RewardMode;
import dev.crucible.verifier.grade.result.IntegrityFinding;
import dev.crucible.verifier.grade.result.TestCase;
import dev.crucible.verifier.config.Component;
import dev.crucible.verifier.config.VerifierSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Weighted sum of component rewards, normalised by the total weight; passes when every component passes. */
public final class CompositeStrategy implements Strategy {
    @Override
    public Outcome grade(VerifierSpec v, GradeContext ctx) {
        double sum = 0;
        double weights = 0;
        boolean all = true;
        long ms = 0;
        List<TestCase> tests = new ArrayList<>();
        List<IntegrityFinding> integrity = new ArrayList<>();
        List<Map<String, Object>> parts = new ArrayList<>();
        for (int i = 0; i < v.components().size(); i++) {
            Component c = v.components().get(i);
            String name = c.name() == null ? "component-" + i : c.name();
            Outcome o = Strategy.forType(c.verifier().typeOrDefault()).grade(c.verifier(), ctx);
            sum += c.weightOrDefault() * o.reward();
            weights += c.weightOrDefault();
            all &= o.passed();
            ms += o.commandMs();
            integrity.addAll(o.integrity());
            for (TestCase t : o.tests()) tests.add(new TestCase(name + "/" + t.id(), t.status(), t.group(), t.durationMs(), t.message()));
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("name", name);
            p.put("weight", c.weightOrDefault());
            p.put("reward", o.reward());
            p.put("verdict", o.verdict());
            p.put("category", o.category());
            if (o.reason() != null) p.put("reason", o.reason());
            parts.add(p);
        }
        double reward = weights == 0 ? 0 : sum / weights;
        if (v.mode() == RewardMode.BINARY) reward = all ? 1.0 : 0.0;
        return new Outcome("composite", reward, RewardFormula.verdict(all), all ? Category.PASSED.label : Category.TESTS_FAILED.label,
                null, weights == 0 ? 0.0 : sum / weights, tests, Map.of("components", parts), ms, integrity);
    }
}
