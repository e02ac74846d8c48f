package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sudo apt-get install} steps against this machine's real dpkg database: left out when the packages
 * are there, named in setup's output and left out when not (TheAlgorithms/Python's libhdf5-dev, tauri's webkit).
 */
class SystemPackagesTest {
    private static final String ABSENT = "crucible-no-such-package-xyz";

    @TempDir
    Path repo;

    @AfterEach
    void noCheck() {
        SystemPackages.use(null);
    }

    private Derivation derive(String packages) throws DerivationException {
        SystemPackages.use(SystemPackages::installedHere);
        String text = WorkflowFixtures.text("apt-packages.yml").replace("PACKAGES", packages);
        return WorkflowFixtures.fromText(repo, ".github/workflows/apt-packages.yml", text);
    }

    /** The setup script without its comments (which quote each step's first line). */
    private static String commands(Derivation d) {
        return String.join("\n", d.setupScript().lines().filter(l -> !l.startsWith("#")).toList());
    }

    @Test
    void aptStepsWhosePackagesAreInstalledAreLeftOutWithTheReason() throws Exception {
        assumeTrue(SystemPackages.installedHere("bash"), "a Debian-based machine (dpkg-query knows bash)");
        Derivation d = derive("bash coreutils");

        assertThat(WorkflowFixtures.step(d, 1).decision()).isEqualTo(Disposition.DROPPED);
        assertThat(WorkflowFixtures.step(d, 1).reason()).contains("[bash, coreutils]").contains("already installed");
        assertThat(commands(d)).doesNotContain("apt-get").doesNotContain("sudo").contains("pip install -e .");
    }

    @Test
    void aMissingPackageIsNamedAndSetupGoesOnWithoutIt() throws Exception {
        assumeTrue(SystemPackages.installedHere("bash"), "a Debian-based machine (dpkg-query knows bash)");
        Derivation d = derive("bash " + ABSENT + "=1.0");

        assertThat(commands(d)).doesNotContain("sudo").doesNotContain("apt-get");
        assertThat(WorkflowFixtures.step(d, 1).decision()).isEqualTo(Disposition.SETUP);
        // the rest of setup runs (its pip install stands in as an echo: no index needed)
        BashRunner.Result r = BashRunner.run(repo, commands(d).replace("pip install -e .", "echo next-step-ran"), Map.of());
        assertThat(r.output()).contains("step 1 installs system packages with apt (" + ABSENT + " not installed on this machine")
                .contains("goes on without them").contains("step 4 installs system packages").contains("next-step-ran").doesNotContain("command not found");
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(d.verifier().command()).isEqualTo("python -m pytest -q");
    }

    @Test
    void withoutAMachineToCheckTheStepStaysAsCiHasIt() throws Exception {
        String text = WorkflowFixtures.text("apt-packages.yml").replace("PACKAGES", ABSENT);
        Derivation d = WorkflowFixtures.fromText(repo, ".github/workflows/apt-packages.yml", text);
        assertThat(d.setupScript()).contains("sudo apt-get install -y " + ABSENT);
    }

    @Test
    void aptCommandsAreReadThroughSudoAndOptions() {
        assertThat(SystemPackages.aptPackages("sudo DEBIAN_FRONTEND=noninteractive apt-get -o X=1 install -y --no-install-recommends libfoo-dev bar=1.2"))
                .containsExactly("libfoo-dev", "bar");
        assertThat(SystemPackages.aptPackages("sudo apt-get update")).isEmpty();
        assertThat(SystemPackages.aptPackages("apt-get install $(cat pkgs.txt)")).isNull();
        assertThat(SystemPackages.aptPackages("pip install x")).isNull();
    }

    @Test
    void linesAddingAnAptSourceGoWithTheAptLines() {
        // fzf's linux.yml: a keyring and a source list written as root, then the install
        String script = """
                sudo install -d -m 0755 /etc/apt/keyrings
                wget -qO- https://apt.example.org/gpg.key | sudo gpg --dearmor -o /etc/apt/keyrings/x.gpg
                echo "deb [signed-by=/etc/apt/keyrings/x.gpg] https://apt.example.org/ /" | sudo tee /etc/apt/sources.list.d/x.list
                sudo apt-get update
                sudo apt-get install --yes bash %s
                make build
                """.formatted(ABSENT);
        SystemPackages.Result r = SystemPackages.strip(script, n -> n.equals("bash"));
        assertThat(r.rest()).isEqualTo("make build");
        assertThat(r.packages()).containsExactly("bash", ABSENT);
        assertThat(r.missing()).containsExactly(ABSENT);
        assertThat(SystemPackages.aptSourceSetup("cp config /etc/apt/x")).as("no sudo: not a root-only apt line").isFalse();
        assertThat(SystemPackages.aptSourceSetup("sudo add-apt-repository ppa:deadsnakes/ppa")).isTrue();
    }

    @Test
    void anInstallerThisMachineLacksIsNamedAndSetupGoesOn() throws Exception {
        // fzf: `bundle install` (rubocop, Ruby integration tests) stopped setup before the Go unit tests
        assumeTrue(!AbsentInstallers.onPath("crucible-no-such-installer"), "bash can say a program is absent");
        SystemPackages.use(SystemPackages::installedHere);
        String text = """
                on: push
                jobs:
                  build:
                    runs-on: ubuntu-latest
                    steps:
                      - uses: actions/checkout@v4
                      - name: Install Ruby gems
                        run: bundle install
                      - run: pip install -e .
                      - run: python -m pytest -q
                """;
        Derivation d = WorkflowFixtures.fromText(repo, ".github/workflows/ci.yml", text);
        if (AbsentInstallers.onPath("bundle")) {
            assertThat(commands(d)).contains("bundle install"); // a machine with Ruby runs it as CI does
            return;
        }
        assertThat(commands(d)).doesNotContain("\nbundle install").contains("bundle is not installed on this machine");
        assertThat(WorkflowFixtures.step(d, 2).notes()).anyMatch(n -> n.contains("installs with bundle"));
        BashRunner.Result r = BashRunner.run(repo, commands(d).lines().filter(l -> l.contains("bundle")).findFirst().orElseThrow(),
                Map.of("PATH", "/usr/bin:/bin"));
        assertThat(r.exit()).isZero();
        assertThat(AbsentInstallers.program("sudo GEM_HOME=x gem install rake")).isEqualTo("gem");
    }
}
