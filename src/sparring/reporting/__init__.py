"""What a person reads: the console and its tables (``console``), PNG plots (``plots``) and
queries of recorded runs for summaries (``runs``).

Layer: above ``runtime``; imports nothing of ``config``, the pipelines, ``tuning`` or the CLI.
"""
