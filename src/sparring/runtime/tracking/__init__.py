"""MLflow: runs and their records, the outbox for a server that does not answer, the
servers we start, parent runs, params, and SQLite stores that come into being whole."""
