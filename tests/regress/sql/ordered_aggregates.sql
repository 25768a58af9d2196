-- ORDER BY inside aggregate calls, and unnest in the select list.
CREATE TABLE sales (region text, day int, amount numeric);
INSERT INTO sales VALUES ('north', 3, 10), ('south', 1, 5), ('north', 1, 7),
  ('south', 2, NULL), ('north', 2, 7), ('east', 1, 1);
SELECT array_agg(day ORDER BY day) FROM sales;
SELECT array_agg(day ORDER BY day DESC) FROM sales;
SELECT region, string_agg(day::text, ',' ORDER BY day) FROM sales GROUP BY region ORDER BY region;
SELECT region, array_agg(amount ORDER BY amount NULLS FIRST, day) FROM sales GROUP BY region ORDER BY 1;
SELECT array_agg(DISTINCT amount ORDER BY amount) FROM sales;
SELECT array_agg(DISTINCT amount ORDER BY day) FROM sales;
SELECT string_agg(region, '|' ORDER BY region DESC, day) FROM sales;
SELECT count(*), sum(amount ORDER BY day) FROM sales;
SELECT array_agg(day ORDER BY region, day) FILTER (WHERE amount > 5) FROM sales;
SELECT upper('x' ORDER BY 1);
SELECT unnest('{1,2,3}'::int[]) AS n, 'row' AS label;
SELECT unnest('{a,b,c}'::text[]), unnest('{1,2}'::int[]);
SELECT region, unnest(array_agg(day ORDER BY day)) FROM sales GROUP BY region ORDER BY 1, 2;
SELECT unnest(NULL::int[]), 1;
SELECT unnest('{}'::int[]);
SELECT array_remove('{1,2,1,NULL}'::int[], 1), array_remove('{1,NULL,2}'::int[], NULL);
SELECT quote_literal('it''s'), quote_literal(E'back\\slash'), quote_nullable(NULL), quote_nullable('x');
SELECT * FROM pg_options_to_table('{fillfactor=70,autovacuum_enabled=false,x}');
