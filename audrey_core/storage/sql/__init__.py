"""The portable SQL layer both dialects share: schema migrations, filters, rows, reads, writes, records and
maintenance."""
