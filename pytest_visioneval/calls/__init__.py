"""Every model and judge request: cache, run-wide concurrency, retries, usage and prices.

Import from the modules (``calls.layer``, ``calls.cache``, ``calls.concurrency``,
``calls.usage``); this package re-exports nothing, so importing one of them
never loads the others.
"""
