-- For PostgresRollingUpgradeTest only: the shape of the migration a release that changes the decide function ships
-- (docs/stores.md#upgrades). It adds rate_limit_counters_decide_v2 beside rate_limit_counters_decide_v1 and drops
-- nothing, so replicas of the previous version keep calling v1 until every replica is upgraded; a later release
-- drops v1. A real one writes its changed function out in full; this one copies v1's definition as the database
-- holds it under the new name, so v2 stands on its own (it calls nothing of v1's) and the test can drop v1.
-- When migrations/postgres gains a real V2, this file takes the next free version.
DO $$
BEGIN
    EXECUTE replace(pg_get_functiondef('rate_limit_counters_decide_v1(timestamptz, varchar[], bigint[])'::regprocedure),
                    'rate_limit_counters_decide_v1(', 'rate_limit_counters_decide_v2(');
END
$$;
