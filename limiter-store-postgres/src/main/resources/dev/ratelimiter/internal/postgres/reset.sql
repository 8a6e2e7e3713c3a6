-- One (bucket, key)'s rows: its fixed windows', its token bucket's and its sliding window's (positional: the bucket,
-- then the key as given, with 'tb:' and with 'sw:').
DELETE FROM ${table} WHERE bucket = ? AND key IN (?, ?, ?)
