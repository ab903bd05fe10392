"""What the tests share: commands run as a user runs them, tiny configs, real services on
loopback, damaged disks and sockets, and what "a file proves itself" means."""
