"""The database that holds state every host shares: a SQLite file by default, PostgreSQL when configured.

`connection.connect` opens either with the same calls (`?` placeholders, explicit BEGIN/COMMIT),
`migrations.migrate` brings its schema to the newest version, `advisory` keeps a job to one runner
across hosts. Drivers are imported on first use: `import assistant` stays fast.
"""

from assistant.db.connection import Connection, DatabaseError, Target, connect

__all__ = ["Connection", "DatabaseError", "Target", "connect"]
