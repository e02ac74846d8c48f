"""The verifiers plugin id of Crucible's taskset: ``crucible-verifiers`` (``--env.taskset.id crucible-verifiers``).
verifiers imports a taskset plugin as a top-level module named by its id and takes the Taskset (and the Harness it
bundles) from its ``__all__``; the code is ``crucible_sdk.adapters.verifiers``."""

from crucible_sdk.adapters.verifiers import CrucibleHarness, CrucibleTaskset

__all__ = ["CrucibleHarness", "CrucibleTaskset"]
