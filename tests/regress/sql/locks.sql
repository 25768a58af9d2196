-- LOCK TABLE and its errors (waits are covered by the client tests).
CREATE TABLE lk (id int);
LOCK TABLE lk;
BEGIN;
LOCK TABLE lk IN ACCESS SHARE MODE;
LOCK TABLE lk IN SHARE ROW EXCLUSIVE MODE NOWAIT;
LOCK lk;
LOCK TABLE nosuch;
ROLLBACK;
DROP TABLE lk;
