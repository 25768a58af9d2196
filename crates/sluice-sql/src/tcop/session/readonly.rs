//! Which statements write, for the read-only transaction check
//! (PostgreSQL's PreventCommandIfReadOnly and ExecCheckXactReadOnly), and
//! the name an unsupported statement is reported by.

use pg_query::NodeEnum;

/// writing_command -- the command name PostgreSQL's read-only check reports
/// for `node` if it writes, `None` for a statement a read-only transaction
/// may run (queries, LOCK, VACUUM and ANALYZE, settings, transaction
/// control). A SELECT counts as writing when its top level locks rows.
pub(super) fn writing_command(node: &NodeEnum) -> Option<String> {
    use pg_query::protobuf::ObjectType;
    let name = match node {
        NodeEnum::InsertStmt(_) => "INSERT",
        NodeEnum::UpdateStmt(_) => "UPDATE",
        NodeEnum::DeleteStmt(_) => "DELETE",
        NodeEnum::SelectStmt(s) if s.into_clause.is_some() => "SELECT INTO",
        NodeEnum::SelectStmt(s) => return select_lock_command(s),
        NodeEnum::CreateStmt(_) => "CREATE TABLE",
        NodeEnum::IndexStmt(_) => "CREATE INDEX",
        NodeEnum::AlterTableStmt(_) => "ALTER TABLE",
        NodeEnum::RenameStmt(_) => "ALTER TABLE",
        NodeEnum::CommentStmt(_) => "COMMENT",
        NodeEnum::CreateSchemaStmt(_) => "CREATE SCHEMA",
        NodeEnum::CreateEnumStmt(_) => "CREATE TYPE",
        NodeEnum::AlterEnumStmt(_) => "ALTER TYPE",
        NodeEnum::CreateDomainStmt(_) => "CREATE DOMAIN",
        NodeEnum::AlterDomainStmt(_) => "ALTER DOMAIN",
        NodeEnum::ViewStmt(_) => "CREATE VIEW",
        NodeEnum::CreateTableAsStmt(_) => "CREATE TABLE AS",
        NodeEnum::AlterOwnerStmt(_) | NodeEnum::AlterObjectSchemaStmt(_) => "ALTER",
        NodeEnum::TruncateStmt(_) => "TRUNCATE TABLE",
        NodeEnum::CreateSeqStmt(_) => "CREATE SEQUENCE",
        NodeEnum::AlterSeqStmt(_) => "ALTER SEQUENCE",
        NodeEnum::ClusterStmt(_) => "CLUSTER",
        NodeEnum::ReindexStmt(_) => "REINDEX",
        NodeEnum::CreateExtensionStmt(_) => "CREATE EXTENSION",
        NodeEnum::CopyStmt(c) if c.is_from => "COPY FROM",
        NodeEnum::DropStmt(d) => match ObjectType::try_from(d.remove_type) {
            Ok(ObjectType::ObjectTable) => "DROP TABLE",
            Ok(ObjectType::ObjectIndex) => "DROP INDEX",
            Ok(ObjectType::ObjectSequence) => "DROP SEQUENCE",
            Ok(ObjectType::ObjectView) => "DROP VIEW",
            Ok(ObjectType::ObjectSchema) => "DROP SCHEMA",
            Ok(ObjectType::ObjectType) => "DROP TYPE",
            Ok(ObjectType::ObjectDomain) => "DROP DOMAIN",
            _ => "DROP",
        },
        _ => return None,
    };
    Some(name.to_string())
}

/// The read-only check's name for a SELECT that locks rows at its top
/// level (`SELECT FOR UPDATE`, ... by the first locking clause).
fn select_lock_command(select: &pg_query::protobuf::SelectStmt) -> Option<String> {
    use pg_query::protobuf::LockClauseStrength;
    let clause = select.locking_clause.first()?;
    let Some(NodeEnum::LockingClause(lock)) = clause.node.as_ref() else { return None };
    let strength = match LockClauseStrength::try_from(lock.strength) {
        Ok(LockClauseStrength::LcsForkeyshare) => "FOR KEY SHARE",
        Ok(LockClauseStrength::LcsForshare) => "FOR SHARE",
        Ok(LockClauseStrength::LcsFornokeyupdate) => "FOR NO KEY UPDATE",
        _ => "FOR UPDATE",
    };
    Some(format!("SELECT {strength}"))
}

/// The name PostgreSQL's error messages use for a statement kind.
pub(super) fn statement_name(node: &NodeEnum) -> String {
    let debug = format!("{node:?}");
    let name = debug.split('(').next().unwrap_or("statement");
    name.trim_end_matches("Stmt").to_string()
}
