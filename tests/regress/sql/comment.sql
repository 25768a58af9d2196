-- COMMENT ON tables, columns, indexes, sequences and constraints, read
-- back by obj_description/col_description and psql.
CREATE TABLE doc (id serial PRIMARY KEY, body text CHECK (body <> ''));
COMMENT ON TABLE doc IS 'documents';
COMMENT ON COLUMN doc.body IS 'the text';
COMMENT ON COLUMN public.doc.id IS 'key';
COMMENT ON INDEX doc_pkey IS 'by id';
COMMENT ON SEQUENCE doc_id_seq IS 'ids';
COMMENT ON CONSTRAINT doc_body_check ON doc IS 'not empty';
SELECT obj_description('doc'::regclass, 'pg_class'), obj_description('doc'::regclass),
       col_description('doc'::regclass, 1), col_description('doc'::regclass, 2),
       col_description('doc'::regclass, 3);
SELECT obj_description('doc_pkey'::regclass, 'pg_class'), obj_description('doc_id_seq'::regclass, 'pg_class');
SELECT conname, obj_description(oid, 'pg_constraint') FROM pg_constraint WHERE conrelid = 'doc'::regclass ORDER BY 1;
\d doc
-- Replaced, then removed.
COMMENT ON TABLE doc IS 'docs';
SELECT description FROM pg_description WHERE objoid = 'doc'::regclass AND objsubid = 0;
COMMENT ON TABLE doc IS NULL;
COMMENT ON COLUMN doc.id IS '';
SELECT obj_description('doc'::regclass, 'pg_class'), col_description('doc'::regclass, 1);
-- Errors.
COMMENT ON TABLE nosuch IS 'x';
COMMENT ON COLUMN doc.nosuch IS 'x';
COMMENT ON CONSTRAINT nosuch ON doc IS 'x';
COMMENT ON INDEX doc IS 'x';
COMMENT ON TABLE doc_pkey IS 'x';
-- Transactional, and gone with the object.
BEGIN;
COMMENT ON TABLE doc IS 'temporary';
ROLLBACK;
SELECT obj_description('doc'::regclass, 'pg_class');
ALTER TABLE doc DROP COLUMN body;
SELECT count(*) FROM pg_description WHERE objoid = 'doc'::regclass;
DROP TABLE doc;
SELECT count(*) FROM pg_description d JOIN pg_class c ON c.oid = d.objoid WHERE c.relname LIKE 'doc%';
