"""Outside programs: run under limits in the sandbox (bubblewrap), kept by a keeper that ends
their whole tree, on their referee's core."""
