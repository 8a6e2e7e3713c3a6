-- At most ${sweep_batch} rows whose windows have all ended (a concurrency bucket's permits row: every lease, or none
-- left), by the same instant as the decisions; rows a decision holds locked are skipped (CounterSweep).
DELETE FROM ${table}
WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ends_at <= ${now} LIMIT ${sweep_batch} FOR UPDATE SKIP LOCKED))
