"""Helpers the test modules share: child-process environments, free ports, polling, servers, known strings."""
