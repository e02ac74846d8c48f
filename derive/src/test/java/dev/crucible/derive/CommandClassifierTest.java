package dev.crucible.derive;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CommandClassifierTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "pytest -q                                          | TEST",
        "python -m pytest -v tests/                         | TEST",
        "python3.12 -X dev -m pytest                        | TEST",
        "python -m etc.unittest                             | TEST",
        "python -m etc.tool                                 | OTHER",
        "poetry run pytest --cov                            | TEST",
        "uv run --frozen pytest                             | TEST",
        "uv run --group dev tox                             | TEST",
        "uv run --extra test --with pytest-xdist pytest -n 2 | TEST",
        "uv run --python 3.12 -m pytest                     | TEST",
        "uv run --group lint ruff check .                   | LINT",
        "uvx --python 3.12 --with tox-uv tox -e py          | TEST",
        "uv tool run --from tox tox -e lint                 | LINT",
        "poetry run -C sub pytest                           | TEST",
        "pipenv run python -m pytest                        | TEST",
        "pdm run -p . pytest                                | TEST",
        "hatch run test:cov                                 | TEST",
        "hatch run +py=3.11 test                            | TEST",
        "hatch run lint:all                                 | LINT",
        "hatch -e default run pytest -x                     | TEST",
        "hatch run docs:build                               | OTHER",
        "hatch test                                         | TEST",
        "tox run -e py312                                   | TEST",
        "tox -e docs,lint                                   | TEST",
        "nox -s lint                                        | LINT",
        "coverage run --source=slugify test.py              | TEST",
        "python runtests.py                                 | TEST",
        "python setup.py develop                            | OTHER",
        "pip install coveralls --upgrade                    | INSTALL",
        "coveralls --service=github                         | CI_ONLY",
        "coverage run -m pytest                             | TEST",
        "coverage run -m unittest discover                  | TEST",
        "python -m unittest discover -s tests               | TEST",
        "tox                                                | TEST",
        "tox -e py311                                       | TEST",
        "tox -e lint,mypy                                   | LINT",
        "nox -s tests-3.12                                  | TEST",
        "nox -s lint                                        | LINT",
        "npm test                                           | TEST",
        "npm t                                              | TEST",
        "npm run test:unit -- --coverage                    | TEST",
        "yarn test --ci                                     | TEST",
        "pnpm -r test                                       | TEST",
        "npm run lint                                       | LINT",
        "yarn lint                                          | LINT",
        "npm run build --if-present                         | OTHER",
        "npx jest --ci                                      | TEST",
        "npx vitest run                                     | TEST",
        "npx eslint .                                       | LINT",
        "npx tsc --noEmit                                   | LINT",
        "npx tsc -p .                                       | OTHER",
        "mvn -B package --file pom.xml                      | TEST",
        "./mvnw -B verify -Pci                              | TEST",
        "mvn -B install -DskipTests                         | OTHER",
        "mvn -B -f service/pom.xml test                     | TEST",
        "mvn spotless:check                                 | LINT",
        "mvn dependency:go-offline                          | INSTALL",
        "./gradlew build                                    | TEST",
        "./gradlew check --no-daemon                        | TEST",
        "./gradlew assemble                                 | OTHER",
        "./gradlew build -x test                            | OTHER",
        "./gradlew spotlessCheck                            | LINT",
        "go test -race ./...                                | TEST",
        "go vet ./...                                       | LINT",
        "go build -v ./...                                  | OTHER",
        "go mod download                                    | INSTALL",
        "cargo test --all-features                          | TEST",
        "cargo nextest run                                  | TEST",
        "cargo clippy -- -D warnings                        | LINT",
        "cargo fmt --all -- --check                         | LINT",
        "cargo build --release                              | OTHER",
        "make test                                          | TEST",
        "make -C backend check                              | TEST",
        "make lint                                          | LINT",
        "make                                               | OTHER",
        "bundle exec rspec                                  | TEST",
        "bundle exec rubocop                                | LINT",
        "dotnet test --no-build                             | TEST",
        "ctest --output-on-failure                          | TEST",
        "./scripts/run-tests.sh                             | TEST",
        "bash ci/test.sh                                    | TEST",
        "ruff check .                                       | LINT",
        "black --check .                                    | LINT",
        "mypy src/                                          | LINT",
        "pre-commit run --all-files                         | LINT",
        "pip install tox                                    | INSTALL",
        "python -m pip install -e .[test]                   | INSTALL",
        "pip install pytest && pytest                       | TEST",
        "sudo apt-get install -y libpq-dev                  | INSTALL",
        "npm ci                                             | INSTALL",
        "yarn install --frozen-lockfile                     | INSTALL",
        "test -f setup.py                                   | OTHER",
        "echo hello                                         | OTHER",
        "twine upload dist/*                                | CI_ONLY",
        "bash <(curl -s https://codecov.io/bash)            | CI_ONLY",
        "docker push ghcr.io/x/y                            | CI_ONLY",
        "sudo chown -R ${USER} ${GITHUB_WORKSPACE}          | CI_ONLY",
        "chown -R runner $GITHUB_WORKSPACE/build            | CI_ONLY",
        "chmod +x $GITHUB_WORKSPACE/run-tests.sh            | OTHER",
        "chown -R 1000 ./data                               | OTHER",
        "CI=true FOO=bar pytest                             | TEST",
        "env -u HOME pytest                                 | TEST",
    })
    void recognises(String command, CommandKind kind) {
        assertThat(CommandClassifier.classifyLine(command.strip()).kind()).isEqualTo(kind);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "pytest -q                                   | false",
        "if [ -f x ]; then pytest; fi                | true",
        "for v in a b; do echo $v; done              | true",
    })
    void structuredScriptsAreNotSplit(String script, boolean structured) {
        assertThat(CommandClassifier.isStructured(script.strip())).isEqualTo(structured);
    }

    @org.junit.jupiter.api.Test
    void logicalLinesJoinContinuationsAndSkipComments() {
        assertThat(CommandClassifier.logicalLines("# install\npip install \\\n  -e .\n\npytest -q\n"))
                .containsExactly("pip install -e .", "pytest -q");
    }
}
