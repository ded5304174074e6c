"""The SQLite dialect (the embedded default): connection, schema, reads through FTS5 / sqlite-vec or the
derived indexes, and the search change log."""
