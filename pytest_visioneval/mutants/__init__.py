"""The mutation self-test: typed broken variants of a known-good output, and legitimate ones.

:func:`catalog.mutants_for` makes, from a case's known-good output (its
reference, or a replayed output), the mutants whose class applies to the case:
broken outputs its gates must catch and legitimate variants they must pass.
The run stage (:mod:`pytest_visioneval.run.mutation`) grades each with the
case's deterministic gates.
"""
