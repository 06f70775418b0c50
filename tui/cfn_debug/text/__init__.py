"""Terminal safety, secret redaction (whole texts and streams) and JSON helpers."""
