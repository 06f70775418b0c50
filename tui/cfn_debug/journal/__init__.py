"""The crash-safe journal of a session: writing, loading and the models it records."""
