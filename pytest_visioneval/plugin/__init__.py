"""Everything that knows pytest: hooks, options, items, fixtures, records, the controller session, snapshots.

The ``pytest11`` entry point is :mod:`pytest_visioneval.plugin.hooks`.
"""
