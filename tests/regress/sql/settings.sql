-- SET, SHOW, RESET and their errors.
SHOW work_mem;
SET work_mem = '64MB';
SHOW work_mem;
RESET work_mem;
SHOW work_mem;
SET no_such_setting = 1;
SET enable_seqscan = maybe;
SHOW shared_buffers;
SHOW synchronous_commit;
SELECT current_setting('work_mem');
BEGIN;
SET LOCAL work_mem = '8MB';
SHOW work_mem;
COMMIT;
SHOW work_mem;
