//! The `information_schema` views ORMs and migration tools read
//! (PostgreSQL's `catalog/information_schema.sql`), as real views over the
//! catalogs, stored by `initdb` with PostgreSQL 15's OIDs.
//!
//! PostgreSQL types their columns with the schema's domains
//! (`sql_identifier`, `cardinal_number`, `character_data`, `yes_or_no`);
//! sluice has no domains yet, so the columns have the domains' base types
//! (`name`, `integer`, `character varying`), which is what clients read
//! the values as either way. The queries follow PostgreSQL's definitions
//! with what sluice cannot say yet left out: no privilege filtering (every
//! session is a superuser), no domains, composite types or temporary
//! schemas, and `_pg_expandarray` written as `generate_series` over the
//! key array. NOT
//! NULL columns appear as PostgreSQL 15 shows them, as CHECK constraints
//! named `<schema oid>_<table oid>_<attnum>_not_null`.

use super::system_views::SqlView;
use sluice_common::Oid;
use sluice_types::SqlType::*;

/// `information_schema`'s OID (PostgreSQL 15's).
pub const INFORMATION_SCHEMA_NAMESPACE: Oid = 13207;

/// `information_schema.schemata`.
const SCHEMATA: SqlView = SqlView {
    oid: 13382,
    rule: 13385,
    namespace: INFORMATION_SCHEMA_NAMESPACE,
    name: "schemata",
    columns: &[
        ("catalog_name", Name),
        ("schema_name", Name),
        ("schema_owner", Name),
        ("default_character_set_catalog", Name),
        ("default_character_set_schema", Name),
        ("default_character_set_name", Name),
        ("sql_path", Varchar),
    ],
    query: "SELECT pg_catalog.current_database()::name AS catalog_name, n.nspname AS schema_name, \
        pg_catalog.pg_get_userbyid(n.nspowner)::name AS schema_owner, NULL::name AS \
        default_character_set_catalog, NULL::name AS default_character_set_schema, NULL::name \
        AS default_character_set_name, NULL::varchar AS sql_path FROM pg_catalog.pg_namespace \
        n",
};

/// `information_schema.tables`.
const TABLES: SqlView = SqlView {
    oid: 13425,
    rule: 13428,
    namespace: INFORMATION_SCHEMA_NAMESPACE,
    name: "tables",
    columns: &[
        ("table_catalog", Name),
        ("table_schema", Name),
        ("table_name", Name),
        ("table_type", Varchar),
        ("self_referencing_column_name", Name),
        ("reference_generation", Varchar),
        ("user_defined_type_catalog", Name),
        ("user_defined_type_schema", Name),
        ("user_defined_type_name", Name),
        ("is_insertable_into", Varchar),
        ("is_typed", Varchar),
        ("commit_action", Varchar),
    ],
    query: "SELECT pg_catalog.current_database()::name AS table_catalog, nc.nspname AS \
        table_schema, c.relname AS table_name, (CASE WHEN c.relkind IN ('r', 'p') THEN 'BASE \
        TABLE' WHEN c.relkind = 'v' THEN 'VIEW' WHEN c.relkind = 'f' THEN 'FOREIGN' ELSE NULL \
        END)::varchar AS table_type, NULL::name AS self_referencing_column_name, NULL::varchar \
        AS reference_generation, NULL::name AS user_defined_type_catalog, NULL::name AS \
        user_defined_type_schema, NULL::name AS user_defined_type_name, (CASE WHEN c.relkind \
        IN ('r', 'p') OR c.relkind = 'v' AND (pg_catalog.pg_relation_is_updatable(c.oid, \
        false) & 8) = 8 THEN 'YES' ELSE 'NO' END)::varchar AS is_insertable_into, 'NO'::varchar \
        AS is_typed, NULL::varchar AS commit_action FROM pg_catalog.pg_namespace nc JOIN \
        pg_catalog.pg_class c ON nc.oid = c.relnamespace WHERE c.relkind IN ('r', 'v', 'f', \
        'p')",
};

/// `information_schema.columns`.
const COLUMNS: SqlView = SqlView {
    oid: 13295,
    rule: 13298,
    namespace: INFORMATION_SCHEMA_NAMESPACE,
    name: "columns",
    columns: &[
        ("table_catalog", Name),
        ("table_schema", Name),
        ("table_name", Name),
        ("column_name", Name),
        ("ordinal_position", Int4),
        ("column_default", Varchar),
        ("is_nullable", Varchar),
        ("data_type", Varchar),
        ("character_maximum_length", Int4),
        ("character_octet_length", Int4),
        ("numeric_precision", Int4),
        ("numeric_precision_radix", Int4),
        ("numeric_scale", Int4),
        ("datetime_precision", Int4),
        ("interval_type", Varchar),
        ("interval_precision", Int4),
        ("character_set_catalog", Name),
        ("character_set_schema", Name),
        ("character_set_name", Name),
        ("collation_catalog", Name),
        ("collation_schema", Name),
        ("collation_name", Name),
        ("domain_catalog", Name),
        ("domain_schema", Name),
        ("domain_name", Name),
        ("udt_catalog", Name),
        ("udt_schema", Name),
        ("udt_name", Name),
        ("scope_catalog", Name),
        ("scope_schema", Name),
        ("scope_name", Name),
        ("maximum_cardinality", Int4),
        ("dtd_identifier", Name),
        ("is_self_referencing", Varchar),
        ("is_identity", Varchar),
        ("identity_generation", Varchar),
        ("identity_start", Varchar),
        ("identity_increment", Varchar),
        ("identity_maximum", Varchar),
        ("identity_minimum", Varchar),
        ("identity_cycle", Varchar),
        ("is_generated", Varchar),
        ("generation_expression", Varchar),
        ("is_updatable", Varchar),
    ],
    query: "SELECT pg_catalog.current_database()::name AS table_catalog, nc.nspname AS \
        table_schema, c.relname AS table_name, a.attname AS column_name, a.attnum::int4 AS \
        ordinal_position, (CASE WHEN a.attgenerated = '' THEN pg_catalog.pg_get_expr(ad.adbin, \
        ad.adrelid) END)::varchar AS column_default, (CASE WHEN a.attnotnull THEN 'NO' ELSE \
        'YES' END)::varchar AS is_nullable, (CASE WHEN t.typcategory = 'A' THEN 'ARRAY' WHEN \
        nt.nspname = 'pg_catalog' THEN pg_catalog.format_type(a.atttypid, NULL) ELSE \
        'USER-DEFINED' END)::varchar AS data_type, (CASE WHEN a.atttypid IN (1042, 1043) AND \
        a.atttypmod <> -1 THEN a.atttypmod - 4 WHEN a.atttypid IN (1560, 1562) AND a.atttypmod \
        <> -1 THEN a.atttypmod END)::int4 AS character_maximum_length, (CASE WHEN a.atttypid \
        IN (25, 1042, 1043) THEN CASE WHEN a.atttypmod = -1 THEN 1073741824 ELSE (a.atttypmod \
        - 4) * 4 END END)::int4 AS character_octet_length, (CASE a.atttypid WHEN 21 THEN 16 \
        WHEN 23 THEN 32 WHEN 20 THEN 64 WHEN 1700 THEN CASE WHEN a.atttypmod = -1 THEN NULL \
        ELSE ((a.atttypmod - 4) >> 16) & 65535 END WHEN 700 THEN 24 WHEN 701 THEN 53 \
        END)::int4 AS numeric_precision, (CASE WHEN a.atttypid IN (21, 23, 20, 700, 701) THEN \
        2 WHEN a.atttypid = 1700 THEN 10 END)::int4 AS numeric_precision_radix, (CASE WHEN \
        a.atttypid IN (21, 23, 20) THEN 0 WHEN a.atttypid = 1700 THEN CASE WHEN a.atttypmod = \
        -1 THEN NULL ELSE (a.atttypmod - 4) & 65535 END END)::int4 AS numeric_scale, (CASE \
        WHEN a.atttypid = 1082 THEN 0 WHEN a.atttypid IN (1083, 1114, 1184, 1266) THEN CASE \
        WHEN a.atttypmod < 0 THEN 6 ELSE a.atttypmod END WHEN a.atttypid = 1186 THEN CASE WHEN \
        a.atttypmod < 0 THEN 6 ELSE a.atttypmod & 65535 END END)::int4 AS datetime_precision, \
        NULL::varchar AS interval_type, NULL::int4 AS interval_precision, NULL::name AS \
        character_set_catalog, NULL::name AS character_set_schema, NULL::name AS \
        character_set_name, (CASE WHEN co.collname IS NOT NULL AND co.collname <> 'default' \
        THEN pg_catalog.current_database() END)::name AS collation_catalog, (CASE WHEN \
        co.collname IS NOT NULL AND co.collname <> 'default' THEN 'pg_catalog' END)::name AS \
        collation_schema, (CASE WHEN co.collname <> 'default' THEN co.collname END)::name AS \
        collation_name, NULL::name AS domain_catalog, NULL::name AS domain_schema, NULL::name \
        AS domain_name, pg_catalog.current_database()::name AS udt_catalog, nt.nspname AS \
        udt_schema, t.typname AS udt_name, NULL::name AS scope_catalog, NULL::name AS \
        scope_schema, NULL::name AS scope_name, NULL::int4 AS maximum_cardinality, \
        a.attnum::text::name AS dtd_identifier, 'NO'::varchar AS is_self_referencing, (CASE \
        WHEN a.attidentity IN ('a', 'd') THEN 'YES' ELSE 'NO' END)::varchar AS is_identity, \
        (CASE a.attidentity WHEN 'a' THEN 'ALWAYS' WHEN 'd' THEN 'BY DEFAULT' END)::varchar AS \
        identity_generation, NULL::varchar AS identity_start, NULL::varchar AS \
        identity_increment, NULL::varchar AS identity_maximum, NULL::varchar AS \
        identity_minimum, (CASE WHEN a.attidentity IN ('a', 'd') THEN 'NO' END)::varchar AS \
        identity_cycle, (CASE WHEN a.attgenerated <> '' THEN 'ALWAYS' ELSE 'NEVER' \
        END)::varchar AS is_generated, (CASE WHEN a.attgenerated <> '' THEN \
        pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) END)::varchar AS generation_expression, \
        (CASE WHEN c.relkind IN ('r', 'p') THEN 'YES' WHEN c.relkind = 'v' AND \
        pg_catalog.pg_column_is_updatable(c.oid, a.attnum, false) THEN 'YES' ELSE 'NO' \
        END)::varchar AS is_updatable \
        FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_attrdef ad ON a.attrelid = \
        ad.adrelid AND a.attnum = ad.adnum JOIN pg_catalog.pg_class c ON a.attrelid = c.oid \
        JOIN pg_catalog.pg_namespace nc ON c.relnamespace = nc.oid JOIN pg_catalog.pg_type t \
        ON a.atttypid = t.oid JOIN pg_catalog.pg_namespace nt ON t.typnamespace = nt.oid LEFT \
        JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation WHERE a.attnum > 0 AND NOT \
        a.attisdropped AND c.relkind IN ('r', 'v', 'f', 'p')",
};

/// `information_schema.views`.
const VIEWS_VIEW: SqlView = SqlView {
    oid: 13483,
    rule: 13486,
    namespace: INFORMATION_SCHEMA_NAMESPACE,
    name: "views",
    columns: &[
        ("table_catalog", Name),
        ("table_schema", Name),
        ("table_name", Name),
        ("view_definition", Varchar),
        ("check_option", Varchar),
        ("is_updatable", Varchar),
        ("is_insertable_into", Varchar),
        ("is_trigger_updatable", Varchar),
        ("is_trigger_deletable", Varchar),
        ("is_trigger_insertable_into", Varchar),
    ],
    query: "SELECT pg_catalog.current_database()::name AS table_catalog, nc.nspname AS \
        table_schema, c.relname AS table_name, pg_catalog.pg_get_viewdef(c.oid)::varchar AS \
        view_definition, (CASE WHEN 'check_option=cascaded' = ANY (c.reloptions) THEN \
        'CASCADED' WHEN 'check_option=local' = ANY (c.reloptions) THEN 'LOCAL' ELSE 'NONE' \
        END)::varchar AS check_option, (CASE WHEN (pg_catalog.pg_relation_is_updatable(c.oid, \
        false) & 20) = 20 THEN 'YES' ELSE 'NO' END)::varchar AS is_updatable, (CASE WHEN \
        (pg_catalog.pg_relation_is_updatable(c.oid, false) & 8) = 8 THEN 'YES' ELSE 'NO' \
        END)::varchar AS is_insertable_into, 'NO'::varchar AS is_trigger_updatable, \
        'NO'::varchar AS is_trigger_deletable, 'NO'::varchar AS is_trigger_insertable_into \
        FROM pg_catalog.pg_namespace nc JOIN pg_catalog.pg_class c ON nc.oid = c.relnamespace \
        WHERE c.relkind = 'v'",
};

/// `information_schema.sequences`.
const SEQUENCES: SqlView = SqlView {
    oid: 13386,
    rule: 13389,
    namespace: INFORMATION_SCHEMA_NAMESPACE,
    name: "sequences",
    columns: &[
        ("sequence_catalog", Name),
        ("sequence_schema", Name),
        ("sequence_name", Name),
        ("data_type", Varchar),
        ("numeric_precision", Int4),
        ("numeric_precision_radix", Int4),
        ("numeric_scale", Int4),
        ("start_value", Varchar),
        ("minimum_value", Varchar),
        ("maximum_value", Varchar),
        ("increment", Varchar),
        ("cycle_option", Varchar),
    ],
    query: "SELECT pg_catalog.current_database()::name AS sequence_catalog, nc.nspname AS \
        sequence_schema, c.relname AS sequence_name, pg_catalog.format_type(s.seqtypid, \
        NULL)::varchar AS data_type, (CASE s.seqtypid WHEN 21 THEN 16 WHEN 23 THEN 32 WHEN 20 \
        THEN 64 END)::int4 AS numeric_precision, 2::int4 AS numeric_precision_radix, 0::int4 \
        AS numeric_scale, s.seqstart::varchar AS start_value, s.seqmin::varchar AS \
        minimum_value, s.seqmax::varchar AS maximum_value, s.seqincrement::varchar AS \
        increment, (CASE WHEN s.seqcycle THEN 'YES' ELSE 'NO' END)::varchar AS cycle_option \
        FROM pg_catalog.pg_namespace nc JOIN pg_catalog.pg_class c ON nc.oid = c.relnamespace \
        JOIN pg_catalog.pg_sequence s ON c.oid = s.seqrelid WHERE c.relkind = 'S' \
        AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d \
        WHERE d.classid = 1259 AND d.objid = c.oid AND d.deptype = 'i')",
};

/// `information_schema.table_constraints`.
const TABLE_CONSTRAINTS: SqlView = SqlView {
    oid: 13411,
    rule: 13414,
    namespace: INFORMATION_SCHEMA_NAMESPACE,
    name: "table_constraints",
    columns: &[
        ("constraint_catalog", Name),
        ("constraint_schema", Name),
        ("constraint_name", Name),
        ("table_catalog", Name),
        ("table_schema", Name),
        ("table_name", Name),
        ("constraint_type", Varchar),
        ("is_deferrable", Varchar),
        ("initially_deferred", Varchar),
        ("enforced", Varchar),
        ("nulls_distinct", Varchar),
    ],
    query: "SELECT pg_catalog.current_database()::name AS constraint_catalog, nc.nspname AS \
        constraint_schema, c.conname AS constraint_name, pg_catalog.current_database()::name \
        AS table_catalog, nr.nspname AS table_schema, r.relname AS table_name, (CASE c.contype \
        WHEN 'c' THEN 'CHECK' WHEN 'f' THEN 'FOREIGN KEY' WHEN 'p' THEN 'PRIMARY KEY' WHEN 'u' \
        THEN 'UNIQUE' END)::varchar AS constraint_type, (CASE WHEN c.condeferrable THEN 'YES' \
        ELSE 'NO' END)::varchar AS is_deferrable, (CASE WHEN c.condeferred THEN 'YES' ELSE \
        'NO' END)::varchar AS initially_deferred, 'YES'::varchar AS enforced, (CASE WHEN \
        c.contype = 'u' THEN 'YES' END)::varchar AS nulls_distinct FROM \
        pg_catalog.pg_namespace nc JOIN pg_catalog.pg_constraint c ON nc.oid = c.connamespace \
        JOIN pg_catalog.pg_class r ON c.conrelid = r.oid JOIN pg_catalog.pg_namespace nr ON \
        nr.oid = r.relnamespace WHERE c.contype IN ('c', 'f', 'p', 'u') AND r.relkind IN ('r', \
        'p') UNION ALL SELECT pg_catalog.current_database()::name, nr.nspname, (nr.oid::text \
        || '_' || r.oid::text || '_' || a.attnum::text || '_not_null')::name, \
        pg_catalog.current_database()::name, nr.nspname, r.relname, 'CHECK'::varchar, \
        'NO'::varchar, 'NO'::varchar, 'YES'::varchar, NULL::varchar FROM \
        pg_catalog.pg_namespace nr JOIN pg_catalog.pg_class r ON nr.oid = r.relnamespace JOIN \
        pg_catalog.pg_attribute a ON a.attrelid = r.oid WHERE a.attnotnull AND a.attnum > 0 \
        AND NOT a.attisdropped AND r.relkind IN ('r', 'p')",
};

/// `information_schema.key_column_usage`.
const KEY_COLUMN_USAGE: SqlView = SqlView {
    oid: 13329,
    rule: 13332,
    namespace: INFORMATION_SCHEMA_NAMESPACE,
    name: "key_column_usage",
    columns: &[
        ("constraint_catalog", Name),
        ("constraint_schema", Name),
        ("constraint_name", Name),
        ("table_catalog", Name),
        ("table_schema", Name),
        ("table_name", Name),
        ("column_name", Name),
        ("ordinal_position", Int4),
        ("position_in_unique_constraint", Int4),
    ],
    query: "SELECT pg_catalog.current_database()::name AS constraint_catalog, nc.nspname AS \
        constraint_schema, c.conname AS constraint_name, pg_catalog.current_database()::name \
        AS table_catalog, nr.nspname AS table_schema, r.relname AS table_name, a.attname AS \
        column_name, k.i::int4 AS ordinal_position, (CASE WHEN c.contype = 'f' THEN k.i \
        END)::int4 AS position_in_unique_constraint FROM pg_catalog.pg_constraint c CROSS JOIN \
        LATERAL pg_catalog.generate_series(1, pg_catalog.array_length(c.conkey, 1)) AS k(i) \
        JOIN pg_catalog.pg_namespace nc ON nc.oid = c.connamespace JOIN pg_catalog.pg_class r \
        ON r.oid = c.conrelid JOIN pg_catalog.pg_namespace nr ON nr.oid = r.relnamespace JOIN \
        pg_catalog.pg_attribute a ON a.attrelid = r.oid AND a.attnum = c.conkey[k.i] WHERE \
        c.contype IN ('p', 'u', 'f') AND r.relkind IN ('r', 'p')",
};

/// `information_schema.referential_constraints`.
const REFERENTIAL_CONSTRAINTS: SqlView = SqlView {
    oid: 13339,
    rule: 13342,
    namespace: INFORMATION_SCHEMA_NAMESPACE,
    name: "referential_constraints",
    columns: &[
        ("constraint_catalog", Name),
        ("constraint_schema", Name),
        ("constraint_name", Name),
        ("unique_constraint_catalog", Name),
        ("unique_constraint_schema", Name),
        ("unique_constraint_name", Name),
        ("match_option", Varchar),
        ("update_rule", Varchar),
        ("delete_rule", Varchar),
    ],
    query: "SELECT pg_catalog.current_database()::name AS constraint_catalog, ncon.nspname AS \
        constraint_schema, con.conname AS constraint_name, (CASE WHEN npkc.nspname IS NULL \
        THEN NULL ELSE pg_catalog.current_database() END)::name AS unique_constraint_catalog, \
        npkc.nspname AS unique_constraint_schema, pkc.conname AS unique_constraint_name, (CASE \
        con.confmatchtype WHEN 'f' THEN 'FULL' WHEN 'p' THEN 'PARTIAL' WHEN 's' THEN 'NONE' \
        END)::varchar AS match_option, (CASE con.confupdtype WHEN 'c' THEN 'CASCADE' WHEN 'n' \
        THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' WHEN 'r' THEN 'RESTRICT' WHEN 'a' THEN 'NO \
        ACTION' END)::varchar AS update_rule, (CASE con.confdeltype WHEN 'c' THEN 'CASCADE' \
        WHEN 'n' THEN 'SET NULL' WHEN 'd' THEN 'SET DEFAULT' WHEN 'r' THEN 'RESTRICT' WHEN 'a' \
        THEN 'NO ACTION' END)::varchar AS delete_rule FROM pg_catalog.pg_namespace ncon JOIN \
        pg_catalog.pg_constraint con ON ncon.oid = con.connamespace LEFT JOIN \
        pg_catalog.pg_constraint pkc ON pkc.conindid = con.conindid AND pkc.conrelid = \
        con.confrelid AND pkc.contype IN ('p', 'u') LEFT JOIN pg_catalog.pg_namespace npkc ON \
        pkc.connamespace = npkc.oid WHERE con.contype = 'f'",
};

/// `information_schema.check_constraints`.
const CHECK_CONSTRAINTS: SqlView = SqlView {
    oid: 13260,
    rule: 13263,
    namespace: INFORMATION_SCHEMA_NAMESPACE,
    name: "check_constraints",
    columns: &[
        ("constraint_catalog", Name),
        ("constraint_schema", Name),
        ("constraint_name", Name),
        ("check_clause", Varchar),
    ],
    query: "SELECT pg_catalog.current_database()::name AS constraint_catalog, rs.nspname AS \
        constraint_schema, con.conname AS constraint_name, \
        pg_catalog.substring(pg_catalog.pg_get_constraintdef(con.oid), 7)::varchar AS \
        check_clause FROM pg_catalog.pg_constraint con LEFT JOIN pg_catalog.pg_namespace rs ON \
        rs.oid = con.connamespace LEFT JOIN pg_catalog.pg_class c ON c.oid = con.conrelid \
        WHERE con.contype = 'c' UNION ALL SELECT pg_catalog.current_database()::name, \
        n.nspname, (n.oid::text || '_' || r.oid::text || '_' || a.attnum::text || \
        '_not_null')::name, (a.attname || ' IS NOT NULL')::varchar FROM \
        pg_catalog.pg_namespace n JOIN pg_catalog.pg_class r ON n.oid = r.relnamespace JOIN \
        pg_catalog.pg_attribute a ON a.attrelid = r.oid WHERE a.attnotnull AND a.attnum > 0 \
        AND NOT a.attisdropped AND r.relkind IN ('r', 'p')",
};

/// The views, in PostgreSQL's OID order of creation.
pub const VIEWS: [SqlView; 9] = [
    SCHEMATA,
    TABLES,
    COLUMNS,
    VIEWS_VIEW,
    SEQUENCES,
    TABLE_CONSTRAINTS,
    KEY_COLUMN_USAGE,
    REFERENTIAL_CONSTRAINTS,
    CHECK_CONSTRAINTS,
];
