"""Helpers shared by the test suites (real processes, real ports; nothing here is a mock)."""
