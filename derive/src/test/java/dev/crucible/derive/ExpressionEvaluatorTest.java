package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crucible.derive.ExpressionContext.ShellVariable;
import dev.crucible.derive.ExpressionContext.Unknown;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExpressionEvaluatorTest {
    private final ExpressionContext context = new ExpressionContext(matrix(), Map.of("LEVEL", "debug", "EMPTY", ""),
            "0123456789abcdef0123456789abcdef01234567");

    private static Map<String, Object> matrix() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("os", "ubuntu-latest");
        m.put("python-version", "3.10");
        m.put("experimental", "true");
        m.put("config", Map.of("name", "full", "extras", List.of("a", "b")));
        return m;
    }

    private Object eval(String expression) {
        return ExpressionEvaluator.evaluate(expression, context);
    }

    @Test
    void contextsAndLiterals() {
        assertThat(eval("matrix.os")).isEqualTo("ubuntu-latest");
        assertThat(eval("matrix.python-version")).isEqualTo("3.10");
        assertThat(eval("matrix['python-version']")).isEqualTo("3.10");
        assertThat(eval("matrix.config.name")).isEqualTo("full");
        assertThat(eval("env.LEVEL")).isEqualTo("debug");
        assertThat(eval("runner.os")).isEqualTo("Linux");
        assertThat(eval("github.sha")).isEqualTo("0123456789abcdef0123456789abcdef01234567");
        assertThat(eval("'it''s'")).isEqualTo("it's");
        assertThat(eval("matrix.missing")).isNull();
    }

    @Test
    void comparisonsAreLooseAndIgnoreCase() {
        assertThat(eval("runner.os == 'linux'")).isEqualTo(true);
        assertThat(eval("matrix.python-version == 3.1")).isEqualTo(true);
        assertThat(eval("matrix.experimental == true")).isEqualTo(false);
        assertThat(eval("matrix.experimental == 'true'")).isEqualTo(true);
        assertThat(eval("matrix.python-version >= '3.9'")).isEqualTo(false);
        assertThat(eval("matrix.python-version >= 3.9")).isEqualTo(false);
        assertThat(eval("2 > 1 && !(1 > 2)")).isEqualTo(true);
        assertThat(eval("env.EMPTY || 'fallback'")).isEqualTo("fallback");
        assertThat(eval("env.LEVEL && 'yes'")).isEqualTo("yes");
    }

    @Test
    void unknownOnlyWhenTheAnswerDependsOnIt() {
        assertThat(eval("github.event_name == 'push'")).isEqualTo(Unknown.VALUE);
        assertThat(eval("github.event_name == 'push' && runner.os == 'Windows'")).isEqualTo(false);
        assertThat(eval("github.event_name == 'push' || runner.os == 'Linux'")).isEqualTo(true);
        assertThat(eval("!startsWith(github.ref, 'refs/tags/')")).isEqualTo(Unknown.VALUE);
        assertThat(eval("steps.build.outputs.version")).isEqualTo(Unknown.VALUE);
        assertThat(eval("hashFiles('**/requirements.txt')")).isEqualTo(Unknown.VALUE);
    }

    @Test
    void statusFunctionsAssumeEveryEarlierStepPassed() {
        assertThat(eval("success()")).isEqualTo(true);
        assertThat(eval("always()")).isEqualTo(true);
        assertThat(eval("failure()")).isEqualTo(false);
        assertThat(eval("cancelled()")).isEqualTo(false);
        assertThat(eval("failure() && runner.os == 'Linux'")).isEqualTo(false);
    }

    @Test
    void functions() {
        assertThat(eval("contains(matrix.os, 'UBUNTU')")).isEqualTo(true);
        assertThat(eval("contains(matrix.config.extras, 'b')")).isEqualTo(true);
        assertThat(eval("startsWith(matrix.os, 'ubuntu')")).isEqualTo(true);
        assertThat(eval("endsWith(matrix.os, 'latest')")).isEqualTo(true);
        assertThat(eval("format('py{0}-{1}', matrix.python-version, runner.os)")).isEqualTo("py3.10-Linux");
        assertThat(eval("join(matrix.config.extras, '+')")).isEqualTo("a+b");
        assertThat(eval("fromJSON('{\"a\": [1, 2]}').a[1]")).isEqualTo(2.0);
        assertThat(ExpressionValues.text(eval("fromJSON('3')"))).isEqualTo("3");
        assertThat(eval("toJSON(matrix.os)")).isEqualTo("\"ubuntu-latest\"");
    }

    @Test
    void secretsAndVarsBecomeShellVariables() {
        assertThat(eval("secrets.PYPI_TOKEN")).isEqualTo(new ShellVariable("PYPI_TOKEN", true, "secrets.PYPI_TOKEN"));
        assertThat(eval("vars.REGION")).isEqualTo(new ShellVariable("REGION", false, "vars.REGION"));
        assertThat(eval("github.token")).isEqualTo(new ShellVariable("GITHUB_TOKEN", true, "github.token"));
        assertThat(ExpressionValues.text(eval("github.workspace"))).isEqualTo("${GITHUB_WORKSPACE}");
    }

    @Test
    void templatesSubstituteEveryExpression() {
        ExpressionTemplates.Result r = ExpressionTemplates.substitute(
                "tox -e py${{ matrix.python-version }} --token ${{ secrets.T }} ${{ github.event.number }} '}}'", context);
        assertThat(r.text()).isEqualTo("tox -e py3.10 --token ${T}  '}}'");
        assertThat(r.usesSecrets()).isTrue();
        assertThat(r.unresolved()).containsExactly("${{ github.event.number }}");
        assertThat(ExpressionTemplates.substitute("${{ format('{0}}}', 'x') }}", context).text()).isEqualTo("x}");
    }

    @Test
    void conditionsWithOrWithoutBraces() {
        assertThat(ExpressionTemplates.condition("${{ runner.os == 'Linux' }}", context)).isEqualTo(true);
        assertThat(ExpressionTemplates.condition("runner.os != 'Linux'", context)).isEqualTo(false);
    }

    @Test
    void syntaxErrorsSayWhat() {
        assertThatThrownBy(() -> eval("matrix.os ==")).hasMessageContaining("ends too early");
        assertThatThrownBy(() -> eval("nosuch(1)")).hasMessageContaining("unknown function nosuch()");
        assertThatThrownBy(() -> eval("'open")).hasMessageContaining("unterminated string");
        assertThatThrownBy(() -> ExpressionTemplates.substitute("echo ${{ matrix.os", context))
                .hasMessageContaining("without a closing");
    }
}
