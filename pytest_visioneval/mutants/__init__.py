"""The mutation self-test: broken and legitimate variants of a known-good output, drawn by property family.

:func:`catalog.mutants_for` makes, from a case's known-good output (its
reference, or a replayed output), seeded random instances of each property
family that applies to the case (geometric, photometric, occlusion, identity,
text, page visibility and timing, temporal; and the legitimate variants):
broken outputs its gates must catch and legitimate variants they must pass.
Each class names the property it breaks and the grader types that can see it
(:mod:`.seen_by`). The run stage (:mod:`pytest_visioneval.run.mutation`)
grades each with the case's deterministic gates.
"""
