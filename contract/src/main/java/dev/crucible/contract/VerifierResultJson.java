package dev.crucible.contract;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The verifier's result as one JSON object: what the pod sidecar writes as its container's termination
 * message and the operator reads back. Writing and parsing live here together so the two sides cannot
 * drift (field names, the 4 KiB cut, what a missing phase means).
 */
public final class VerifierResultJson {

    /** Kubernetes keeps at most 4 KiB of a termination message; longer ones are cut. */
    public static final int MAX_BYTES = 4096;
    /** ... and at most 12 KiB for all of a pod's containers together, init containers included, split evenly. */
    public static final int POD_BYTES = 12 * 1024;

    /**
     * What the kubelet keeps of one container's termination message in a pod of {@code containers} containers
     * (init containers counted): 12 KiB split evenly, at most 4 KiB. A message past it arrives cut, no longer JSON.
     */
    public static int podBudget(int containers) {
        return containers <= 0 ? MAX_BYTES : Math.min(MAX_BYTES, POD_BYTES / containers);
    }
    /** A finding's evidence (and path) is cut to this many characters wherever findings leave the host (pod result, result.json). */
    public static final int MAX_EVIDENCE = 160;
    /** At most this many findings are written; the count of the rest stays ({@code findingsOmitted}). */
    public static final int MAX_FINDINGS = 16;
    static final int MAX_MESSAGE = 512;

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    private VerifierResultJson() {
    }

    /**
     * Test counts; the sidecar fills the first four, a custom verifier may add the SWE-bench split. {@code isolated}:
     * how many tests the isolated oracle graded split (issue 33; the others in-process), null where it did not grade.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Tests(Integer passed, Integer failed, Integer errors, Integer skipped, Integer total,
                        Integer failToPassPassed, Integer failToPassTotal, Integer passToPassPassed, Integer passToPassTotal,
                        Integer isolated) {
        public Tests(Integer passed, Integer failed, Integer errors, Integer skipped, Integer total,
                     Integer failToPassPassed, Integer failToPassTotal, Integer passToPassPassed, Integer passToPassTotal) {
            this(passed, failed, errors, skipped, total, failToPassPassed, failToPassTotal, passToPassPassed, passToPassTotal, null);
        }

        public static Tests of(int passed, int failed, int skipped, int total) {
            return new Tests(passed, failed, null, skipped, total, null, null, null, null);
        }

        public Tests withIsolated(Integer n) {
            return new Tests(passed, failed, errors, skipped, total, failToPassPassed, failToPassTotal, passToPassPassed, passToPassTotal, n);
        }
    }

    /** One finding of the live monitor or the grading guards. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Finding(String detector, String severity, String rule, String path, String evidence, String time,
                          Integer step, String action) {
    }

    /**
     * What the sidecar kept of the rollout's trajectory (issue 36): {@code complete} false when the recorder's cap was
     * hit, a write failed or the trace store refused or could not be reached; {@code problem} the first reason.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Trajectory(boolean complete, Long events, String problem) {
    }

    /**
     * The facts the writer decided {@code phase} from, as flags (issue 40): a reader adds what only it saw (the
     * operator's deadline, the kubelet's OOM kill) and decides by the same {@link TerminalOutcome#of} from these, never
     * by reading reason strings back. A flag that is false is left out; the texts stay in {@code message}, and the verdict
     * and counted findings are the result's own fields. A custom verifier writes none (its phase and reason then count).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Facts(Boolean interrupted, Boolean refused, Boolean setupFailed, String policy, Boolean timedOut,
                        Long deadlineSeconds, Boolean limitExceeded, Integer agentExit) {

        public static Facts of(OutcomeFacts f) {
            return new Facts(flag(f.interrupted()), flag(f.refusal() != null), flag(f.setupError() != null), f.policy(),
                    flag(f.timedOut()), f.deadlineSeconds() > 0 ? f.deadlineSeconds() : null, flag(f.limitExceeded()), f.agentExit());
        }

        /** The facts again, with the result's verdict, counted findings and message as their texts. */
        public OutcomeFacts outcomeFacts(String verdict, int countedFindings, String message) {
            String text = message == null ? "" : message;
            return OutcomeFacts.none().withInterrupted(on(interrupted)).withRefusal(on(refused) ? text : null)
                    .withSetupError(on(setupFailed) ? text : null)
                    .withFindings(countedFindings, policy == null ? SpecDefaults.HACK_POLICY_ACTION : policy)
                    .withTimedOut(on(timedOut), deadlineSeconds == null ? 0 : deadlineSeconds)
                    .withLimitExceeded(on(limitExceeded), on(limitExceeded) ? message : null)
                    .withGrade(verdict, message).withAgentExit(agentExit);
        }

        private static Boolean flag(boolean b) {
            return b ? Boolean.TRUE : null;
        }

        private static boolean on(Boolean b) {
            return Boolean.TRUE.equals(b);
        }
    }

    /**
     * The result. {@code countedFindings} is the whole count even when {@code hackFindings} was cut to fit;
     * {@code report} is the raw JSON it was parsed from (null when built to be written); {@code facts} what the phase
     * was decided from (null from a verifier that does not write them).
     */
    public record Result(PhaseName phase, String reason, Integer turns, Double reward, Double testReward, String verdict,
                         Tests tests, int countedFindings, List<Finding> hackFindings, Integer findingsOmitted,
                         String message, String report, String integrity, Trajectory trajectory, Facts facts) {
        /** The shape before {@code facts}. */
        public Result(PhaseName phase, String reason, Integer turns, Double reward, Double testReward, String verdict,
                      Tests tests, int countedFindings, List<Finding> hackFindings, Integer findingsOmitted, String message, String report,
                      String integrity, Trajectory trajectory) {
            this(phase, reason, turns, reward, testReward, verdict, tests, countedFindings, hackFindings, findingsOmitted, message, report,
                    integrity, trajectory, null);
        }

        /** The shape before {@code trajectory}. */
        public Result(PhaseName phase, String reason, Integer turns, Double reward, Double testReward, String verdict,
                      Tests tests, int countedFindings, List<Finding> hackFindings, Integer findingsOmitted, String message, String report,
                      String integrity) {
            this(phase, reason, turns, reward, testReward, verdict, tests, countedFindings, hackFindings, findingsOmitted, message, report, integrity, null);
        }

        /** The shape before {@code integrity}. */
        public Result(PhaseName phase, String reason, Integer turns, Double reward, Double testReward, String verdict,
                      Tests tests, int countedFindings, List<Finding> hackFindings, Integer findingsOmitted, String message, String report) {
            this(phase, reason, turns, reward, testReward, verdict, tests, countedFindings, hackFindings, findingsOmitted, message, report, null);
        }

        /**
         * This result with {@code integrity}: where the reward's test verdicts came from, {@code isolated} (every
         * counted test ran split by the isolated oracle) or {@code in-process}; null where no test suite was graded.
         */
        public Result withIntegrity(String i) {
            return new Result(phase, reason, turns, reward, testReward, verdict, tests, countedFindings, hackFindings, findingsOmitted, message, report, i,
                    trajectory, facts);
        }

        /** This result with what was kept of its trajectory. */
        public Result withTrajectory(Trajectory t) {
            return new Result(phase, reason, turns, reward, testReward, verdict, tests, countedFindings, hackFindings, findingsOmitted, message, report,
                    integrity, t, facts);
        }

        /** This result with the facts its phase was decided from. */
        public Result withFacts(Facts f) {
            return new Result(phase, reason, turns, reward, testReward, verdict, tests, countedFindings, hackFindings, findingsOmitted, message, report,
                    integrity, trajectory, f);
        }
    }

    /** Either a result or why there is none; parsing never throws. */
    public record Parsed(Result result, String error) {
        public boolean ok() {
            return result != null;
        }
    }

    /**
     * The JSON, at most {@link #MAX_BYTES}: findings are cut first (16, 8, …, none; the count stays), evidence
     * to 160 characters and the message to 512.
     */
    public static String write(Result r) {
        return write(r, MAX_BYTES);
    }

    /** As {@link #write(Result)}, at most {@code maxBytes} ({@link #podBudget}: a pod's share). */
    public static String write(Result r, int maxBytes) {
        for (int keep = MAX_FINDINGS; ; keep = keep / 2) {
            String json = WellFormedText.of(render(r, keep)); // a lone surrogate (or a cut through a pair) would fail the file write
            if (json.getBytes(StandardCharsets.UTF_8).length <= maxBytes || keep == 0) {
                return json;
            }
        }
    }

    private static String render(Result r, int keepFindings) {
        ObjectNode root = JSON.createObjectNode();
        root.put("phase", r.phase().name());
        if (r.reason() != null) root.put("reason", r.reason());
        if (r.turns() != null) root.put("turns", r.turns());
        if (r.reward() != null) root.put("reward", r.reward());
        if (r.testReward() != null) root.put("testReward", r.testReward());
        if (r.verdict() != null) root.put("verdict", r.verdict());
        if (r.tests() != null) root.set("tests", JSON.valueToTree(r.tests()));
        if (r.integrity() != null) root.put("integrity", r.integrity());
        if (r.hackFindings() != null) {
            List<Finding> all = r.hackFindings();
            root.put("countedFindings", r.countedFindings());
            var out = root.putArray("hackFindings");
            for (Finding f : all.subList(0, Math.min(keepFindings, all.size()))) {
                out.add(JSON.valueToTree(new Finding(f.detector(), f.severity(), f.rule(), f.path(),
                        cut(f.evidence(), keepFindings == 0 ? 0 : MAX_EVIDENCE), f.time(), f.step(), f.action())));
            }
            int omitted = all.size() - Math.min(keepFindings, all.size()) + (r.findingsOmitted() == null ? 0 : r.findingsOmitted());
            if (omitted > 0) root.put("findingsOmitted", omitted);
        }
        if (r.facts() != null) root.set("facts", JSON.valueToTree(r.facts()));
        if (r.message() != null) root.put("message", cut(r.message(), MAX_MESSAGE));
        if (r.trajectory() != null) {
            Trajectory t = r.trajectory();
            root.set("trajectory", JSON.valueToTree(new Trajectory(t.complete(), t.events(), cut(t.problem(), keepFindings == 0 ? 0 : MAX_EVIDENCE))));
        }
        return root.toString();
    }

    /** The result in {@code message}, or why it is not one (names the field). */
    public static Parsed parse(String message) {
        if (message == null || message.isBlank()) {
            return error("the verifier wrote no result");
        }
        JsonNode root;
        try {
            root = JSON.readTree(message);
        } catch (Exception e) {
            return error("the verifier result is not JSON" + (message.length() >= MAX_BYTES
                    ? " (it was cut at 4 KiB; keep the result short)" : "") + ": " + firstLine(e.getMessage()));
        }
        if (root == null || !root.isObject()) {
            return error("the verifier result must be a JSON object");
        }
        try {
            Double reward = finite(root, "reward");
            Double testReward = finite(root, "testReward");
            String verdict = root.hasNonNull("verdict") ? root.get("verdict").asText() : null;
            Tests tests = root.hasNonNull("tests") ? read(root.get("tests"), Tests.class, "tests") : null;
            List<Finding> findings = new ArrayList<>();
            if (root.has("hackFindings") && root.get("hackFindings").isArray()) {
                int i = 0;
                for (JsonNode f : root.get("hackFindings")) {
                    findings.add(read(f, Finding.class, "hackFindings[" + i++ + "]"));
                }
            }
            int counted = root.hasNonNull("countedFindings") && root.get("countedFindings").canConvertToInt()
                    ? root.get("countedFindings").asInt()
                    : FindingSeverity.counted(findings.stream().map(Finding::severity).toList());
            Integer turns = intOrNull(root, "turns");
            Integer omitted = intOrNull(root, "findingsOmitted");
            String reason = root.hasNonNull("reason") ? root.get("reason").asText() : null;
            String msg = root.hasNonNull("message") ? root.get("message").asText() : null;
            PhaseName phase;
            if (root.hasNonNull("phase")) {
                phase = terminalPhase(root.get("phase").asText());
                if (phase == null) {
                    return error("phase must be Succeeded, Failed, Hacked or TimedOut, got " + root.get("phase"));
                }
            } else {
                // a verifier of its own may leave the phase out: the contract's order decides it from the rest
                phase = TerminalOutcome.of(OutcomeFacts.none().withFindings(counted, SpecDefaults.HACK_POLICY_ACTION).withGrade(verdict, msg)).phase();
            }
            String integrity = root.hasNonNull("integrity") ? root.get("integrity").asText() : null;
            if (integrity != null && !integrity.equals("isolated") && !integrity.equals("in-process")) {
                return error("integrity must be isolated or in-process, got " + root.get("integrity"));
            }
            Trajectory trajectory = root.hasNonNull("trajectory") ? read(root.get("trajectory"), Trajectory.class, "trajectory") : null;
            Facts facts = root.hasNonNull("facts") ? read(root.get("facts"), Facts.class, "facts") : null;
            return new Parsed(new Result(phase, reason, turns, reward, testReward, verdict, tests, counted,
                    findings.isEmpty() ? null : findings, omitted, msg, message.strip(), integrity, trajectory, facts), null);
        } catch (IllegalArgumentException e) {
            return error(e.getMessage());
        } catch (Exception e) {
            return error("the verifier result has a malformed field: " + firstLine(e.getMessage()));
        }
    }

    /** A nested object, or an error that names the field that did not fit (tests.passed, hackFindings[2].step). */
    private static <T> T read(JsonNode node, Class<T> type, String field) {
        try {
            return JSON.treeToValue(node, type);
        } catch (JsonMappingException e) {
            String inner = e.getPath().stream().map(r -> r.getFieldName() != null ? "." + r.getFieldName() : "[" + r.getIndex() + "]")
                    .collect(Collectors.joining());
            throw new IllegalArgumentException("the verifier result has a malformed field " + field + inner + ": "
                    + firstLine(e.getOriginalMessage()));
        } catch (Exception e) {
            throw new IllegalArgumentException("the verifier result has a malformed field " + field + ": " + firstLine(e.getMessage()));
        }
    }

    private static PhaseName terminalPhase(String s) {
        for (PhaseName p : PhaseName.values()) {
            if (p.name().equals(s) && p.isTerminal()) return p;
        }
        return null;
    }

    private static Double finite(JsonNode root, String field) {
        if (!root.hasNonNull(field)) return null;
        JsonNode n = root.get(field);
        if (!n.isNumber() || !Double.isFinite(n.asDouble())) {
            throw new IllegalArgumentException(field + " must be a finite number, got " + n);
        }
        return n.asDouble();
    }

    private static Integer intOrNull(JsonNode root, String field) {
        return root.hasNonNull(field) && root.get(field).canConvertToInt() ? root.get(field).asInt() : null;
    }

    private static Parsed error(String why) {
        return new Parsed(null, why);
    }

    private static String cut(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max) + "…";
    }

    /** {@code s} cut to {@link #MAX_EVIDENCE} characters ("…" marks a cut), never through a surrogate pair. */
    public static String cutEvidence(String s) {
        if (s == null || s.length() <= MAX_EVIDENCE) return s;
        int end = Character.isHighSurrogate(s.charAt(MAX_EVIDENCE - 1)) ? MAX_EVIDENCE - 1 : MAX_EVIDENCE;
        return s.substring(0, end) + "…";
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
