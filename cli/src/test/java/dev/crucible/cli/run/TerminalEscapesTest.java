package dev.crucible.cli.run;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * rt34 esc-names through the real CLI: file names the agent chooses, with terminal control sequences (an OSC 52
 * clipboard write, a title change, a screen clear) and newlines forging a line of their own, reach the terminal only
 * as visible escapes; result.json keeps them exact. Before, the FINDING lines and the summary printed them raw.
 */
@Timeout(240)
class TerminalEscapesTest {
    private static final String AGENT = """
            set -eu
            python3 - <<'PY'
            names = ["esc\\x1b]0;RT34-TITLE\\x07\\x1b[2J.py", "osc52\\x1b]52;c;UlQzNC1DTElQ\\x07.py",
                     "nl\\nFAKE: Succeeded reward 1.0\\n.py", "bidi\\u202eyp.py", "c1\\u009b31m.py"]
            for n in names:
                with open("calc/" + n, "w") as f:
                    f.write("class X:\\n    __eq__ = lambda self, o: True\\n")
            PY
            """;

    @Test
    void agentChosenNamesReachTheTerminalEscaped(@TempDir Path dir) throws Exception {
        LocalRuns.withoutSetup(LocalRuns.copyExample(dir, null));
        Path agent = dir.resolve("esc-names.sh");
        Files.writeString(agent, AGENT);
        LocalRuns.Run r = LocalRuns.run("-f", dir.resolve("environment.yaml").toString(), "--agent-cmd", "sh " + agent,
                "--out", dir.resolve("out").toString());
        String terminal = r.out() + r.err();
        JsonNode res = LocalRuns.json(dir.resolve("out/result.json"));
        assertThat(res.path("hackFindings").toString()).as(terminal).contains("osc52");
        // result.json keeps the exact names (JSON escapes them)
        assertThat(res.path("hackFindings").findValuesAsText("path")).anyMatch(p -> p.contains("\u001b]52;c;UlQzNC1DTElQ\u0007"));
        for (char c : new char[] {'\u001b', '\u0007', '\u009b', '\u202e'}) {
            assertThat(terminal.indexOf(c)).as("U+%04X on the terminal:%n%s", (int) c, terminal).isEqualTo(-1);
        }
        assertThat(terminal.lines()).noneMatch(l -> l.startsWith("FAKE:") || l.startsWith(".py"));
        assertThat(terminal).contains("osc52\\x1b]52;c;UlQzNC1DTElQ\\x07.py").contains("nl\\nFAKE: Succeeded reward 1.0\\n.py");
        // the summary at the end too
        assertThat(terminal.substring(terminal.indexOf("  findings  "))).doesNotContain("\u001b");
    }
}
