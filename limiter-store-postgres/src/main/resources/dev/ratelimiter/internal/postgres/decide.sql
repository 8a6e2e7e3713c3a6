-- Several calls, each of one or more items, decided by the migration's function (its parameters and answer are
-- described there). Three parameters, since the client's cost grows with each parameter it binds; static, so the
-- server plans it once per session. ${instant} is NULL in production (the database's instant).
SELECT ${decide}(${instant}, :names::varchar[], :numbers::bigint[])
