package dev.crucible.trajectory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The timeline line of an event is the agent's text (file names, evidence, arguments): whatever it holds, the line
 * drives no terminal and forges no line of its own (blind host-side red team: `crucible trace` printed an OSC 52
 * clipboard write, a title change and a newline from file names raw).
 */
class TraceTextTest {
    private static String line(String kind, Map<String, Object> data) {
        return TraceText.summary(new TraceEvent(1, "2026-11-29T00:00:00Z", kind, null, null, data));
    }

    @Test
    void anAgentsFileNameCannotDriveTheTerminalOrForgeALine() {
        String osc52 = "calc/\u001b]52;c;SE9TVA==\u0007.py";
        String title = "calc/\u001b]0;PWNED\u0007\u001b[2J.py";
        String newline = "calc/new\nline.py (6 B, sha256:…) by process #1";
        String bidi = "calc/exe\u202eyp.txt";
        for (String name : new String[] {osc52, title, newline, bidi}) {
            String s = line(EventKind.FILE, Map.of("op", "added", "path", name, "size", 6));
            assertThat(s).as(s).doesNotContain("\u001b", "\u0007", "\n", "\r", "\u202e").startsWith("added calc/");
        }
        assertThat(line(EventKind.FILE, Map.of("op", "added", "path", osc52))).contains("\\x1b]52;c;");
        assertThat(line(EventKind.FILE, Map.of("op", "added", "path", bidi))).contains("\\u202e");
    }

    @Test
    void evidenceCommandsAndStepArgumentsAreMadePrintableToo() {
        String esc = "x\u001b[8mhidden\u009b31m";
        assertThat(line(EventKind.FINDING, Map.of("severity", "high", "detector", "d", "path", esc, "evidence", esc)))
                .doesNotContain("\u001b", "\u009b");
        assertThat(line(EventKind.PROCESS_START, Map.of("pid", 7, "command", "sh -c " + esc, "cwd", "/w/" + esc)))
                .doesNotContain("\u001b", "\u009b");
        assertThat(line(EventKind.STEP, Map.of("tool", "bash" + esc, "args", Map.of("command", esc)))).doesNotContain("\u001b");
        assertThat(line(EventKind.SNAPSHOT, Map.of("op", "taken", "id", esc))).doesNotContain("\u001b");
    }
}
