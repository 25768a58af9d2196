-- Backend statistics functions and pg_stat_slru.
SELECT count(*) > 0 AS has_backends FROM pg_stat_get_backend_idset();
SELECT count(*) AS me FROM pg_stat_get_backend_idset() id
  WHERE pg_stat_get_backend_pid(id) = pg_backend_pid();
SELECT count(*) = count(pg_stat_get_backend_pid(backend)) AS all_have_pids
  FROM pg_stat_get_backend_idset() AS b(backend);
SELECT pg_stat_get_backend_pid(-1), pg_stat_get_backend_pid(100000);
SELECT name, blks_zeroed >= 0 AS z, blks_hit >= 0 AS h, blks_read >= 0 AS r,
       blks_written >= 0 AS w, blks_exists >= 0 AS e, flushes >= 0 AS f,
       truncates >= 0 AS t, stats_reset <= now() AS reset
  FROM pg_stat_slru;
-- The server's own processes: no database, user, state or query, each
-- waiting in its main loop.
SELECT backend_type, wait_event_type, wait_event, datid IS NULL AS no_db,
       usename IS NULL AS no_user, state IS NULL AS no_state, query = '' AS no_query,
       backend_start <= now() AS started
  FROM pg_stat_activity WHERE backend_type IN ('checkpointer', 'walwriter') ORDER BY 1;
SELECT backend_type FROM pg_stat_activity WHERE pid = pg_backend_pid();
