-- System views computed from live state.
SELECT name, setting, unit, category, context, vartype, min_val, max_val, boot_val
  FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'enable_seqscan', 'checkpoint_timeout') ORDER BY name;
SELECT name, enumvals FROM pg_settings WHERE name = 'synchronous_commit';
SET work_mem = '16MB';
SELECT setting, unit FROM pg_settings WHERE name = 'work_mem';
RESET work_mem;
SELECT count(*) > 300 AS many_settings FROM pg_settings;
SELECT datname = current_database() AS this_db, usename, state, query FROM pg_stat_activity WHERE pid = pg_backend_pid();
