/**
 * Environments from a repository's own CI: derives an RLEnvironment (setup script, toolchains, env,
 * test and lint verifiers) from a GitHub Actions workflow job, with a report of what became of every
 * step and why.
 *
 * <p>Entry point: {@link dev.crucible.derive.WorkflowDeriver#derive(java.nio.file.Path, String, String,
 * String, java.util.Map, String)} returns a {@link dev.crucible.derive.Derivation} or throws a
 * {@link dev.crucible.derive.DerivationException} naming the file, job and line. The deriver is
 * stateless and safe to share between threads. It needs no API types: the manifest is a Jackson tree
 * shaped like {@code examples/python-bugfix/environment.yaml}, so the CLI ({@code crucible derive})
 * and the operator's RLEnvironment reconciler use the same code.
 *
 * <p>How a workflow maps: parsing ({@code WorkflowParser}, {@code YamlDocument}: line numbers from
 * SnakeYAML nodes), job choice ({@code JobChooser}), matrix expansion and choice ({@code MatrixExpander},
 * {@code MatrixChooser}), expressions ({@code ExpressionEvaluator}, {@code ExpressionValues},
 * {@code ExpressionFunctions}, {@code ExpressionTemplates}, {@code ExpressionContext}), per-step
 * resolution ({@code StepPlanner}, {@code ActionMapping}, {@code CompositeAction},
 * {@code CommandClassifier}, {@code BuildToolCommands}), roles ({@code StepRoles}), then output
 * ({@code ShellScripts}, {@code VerifierShapes}, {@code ManifestBuilder}, {@code ManifestYaml},
 * {@code ReportJson}). Files at a commit are read with git ({@code RepositoryFiles}).
 */
package dev.crucible.derive;
