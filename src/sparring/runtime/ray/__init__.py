"""Ray: the session a driver joins or starts, the machine's shared local head, its health,
fan-out over tasks, and nothing of an embedded Ray outliving its driver."""
