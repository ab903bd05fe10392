"""What a person reads: the console and its tables (``console``), PNG plots (``plots``),
queries of recorded runs for summaries (``runs``) and the comparison of runs (``compare``, its
queries in ``compare_query``).

Layer: above ``config`` and ``runtime`` (of ``config``, only the comparison's output formats);
imports nothing of the pipelines, ``tuning`` or the CLI.
"""
