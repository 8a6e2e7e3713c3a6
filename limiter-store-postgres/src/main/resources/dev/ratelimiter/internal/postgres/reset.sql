-- One (bucket, key)'s rows: its fixed windows', its token bucket's, its sliding window's and its concurrency bucket's
-- permits (positional: the bucket, then the key as given, with 'tb:', with 'sw:' and with 'cp:').
DELETE FROM ${table} WHERE bucket = ? AND key IN (?, ?, ?, ?)
