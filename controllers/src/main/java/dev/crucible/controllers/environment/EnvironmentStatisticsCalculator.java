package dev.crucible.controllers.environment;

import dev.crucible.contract.PhaseName;
import dev.crucible.contract.SpecDefaults;
import dev.crucible.api.v1alpha1.environment.EnvironmentStatistics;
import dev.crucible.api.v1alpha1.environment.GroupStatistics;
import dev.crucible.api.v1alpha1.environment.LearnableBand;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Statistics over the Rollouts of one environment (pure). A group is learnable (PROPEL) when its solve
 * rate lies inside the band; that is judged only once the group is complete (all planned attempts
 * finished), because a half-finished group's rate still moves.
 */
public final class EnvironmentStatisticsCalculator {

    public static final double FULL_MARK = 1.0;
    public static final double DEFAULT_MIN = SpecDefaults.MIN_SOLVE_RATE;
    public static final double DEFAULT_MAX = SpecDefaults.MAX_SOLVE_RATE;
    /** Status stays small: at most this many groups are listed (the most recent by id order). */
    public static final int MAX_GROUPS = 256;

    private EnvironmentStatisticsCalculator() {
    }

    public static EnvironmentStatistics compute(List<RolloutOutcome> outcomes, LearnableBand band) {
        double min = band == null || band.minSolveRate == null ? DEFAULT_MIN : band.minSolveRate;
        double max = band == null || band.maxSolveRate == null ? DEFAULT_MAX : band.maxSolveRate;
        EnvironmentStatistics s = new EnvironmentStatistics();
        int running = 0, succeeded = 0, failed = 0, hacked = 0, timedOut = 0, solved = 0, finished = 0, infrastructure = 0;
        Map<String, List<RolloutOutcome>> groups = new TreeMap<>();
        for (RolloutOutcome o : outcomes) {
            if (o.phase() == PhaseName.Running || o.phase() == PhaseName.Verifying) {
                running++;
            }
            if (o.phase() == PhaseName.Succeeded) {
                succeeded++;
            } else if (o.phase() == PhaseName.Failed) {
                failed++;
            } else if (o.phase() == PhaseName.Hacked) {
                hacked++;
            } else if (o.phase() == PhaseName.TimedOut) {
                timedOut++;
            }
            if (o.finished()) {
                finished++;
            }
            if (o.infrastructureFailure()) {
                infrastructure++;
            }
            if (o.solved()) {
                solved++;
            }
            if (o.groupId() != null) {
                groups.computeIfAbsent(o.groupId(), k -> new ArrayList<>()).add(o);
            }
        }
        s.rollouts = outcomes.size();
        s.running = running;
        s.succeeded = succeeded;
        s.failed = failed;
        s.hacked = hacked;
        s.timedOut = timedOut;
        s.solved = solved;
        s.solveRate = finished == 0 ? null : round((double) solved / finished);
        s.infrastructureFailures = infrastructure;
        int learnable = 0;
        List<GroupStatistics> list = new ArrayList<>();
        for (var e : groups.entrySet()) {
            GroupStatistics g = group(e.getKey(), e.getValue(), min, max);
            if (Boolean.TRUE.equals(g.learnable)) {
                learnable++;
            }
            list.add(g);
        }
        s.learnableGroups = learnable;
        s.groups = list.isEmpty() ? null : list.subList(Math.max(0, list.size() - MAX_GROUPS), list.size());
        return s;
    }

    static GroupStatistics group(String id, List<RolloutOutcome> members, double min, double max) {
        GroupStatistics g = new GroupStatistics();
        g.id = id;
        g.attempts = members.size();
        g.finished = (int) members.stream().filter(RolloutOutcome::finished).count();
        g.solved = (int) members.stream().filter(RolloutOutcome::solved).count();
        int lost = (int) members.stream().filter(RolloutOutcome::infrastructureFailure).count();
        g.infrastructureFailures = lost == 0 ? null : lost;
        int planned = members.stream().map(RolloutOutcome::groupSize).filter(java.util.Objects::nonNull)
                .max(Integer::compare).orElse(members.size());
        // An attempt lost to the infrastructure is not retried here: the group is complete once every
        // member is terminal, and its rate counts only the attempts that ran.
        boolean complete = g.finished + lost >= Math.max(planned, members.size());
        if (complete && g.finished > 0) {
            double rate = (double) g.solved / g.finished;
            g.learnable = rate >= min && rate <= max;
        }
        return g;
    }

    private static double round(double v) {
        return Math.round(v * 10000.0) / 10000.0;
    }
}
