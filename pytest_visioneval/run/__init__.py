"""One case's evaluation: generate -> store -> prepare -> grade, repeats, evaluating ahead.

``case`` runs the stages for one evaluation, ``evaluation`` makes a job of a
case (its repeats combined by ``repeats``) with a plain JSON outcome whose
entries ``entries`` defines, and ``pipeline`` runs cases ahead of pytest.
"""
