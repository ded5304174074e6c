"""The PostgreSQL dialect: pooled connections, pgvector and full-text schema, keyword candidates."""
