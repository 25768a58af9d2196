//! Where statement results go. The protocol layer implements [`QuerySink`] and
//! turns each call into wire messages (RowDescription, DataRow,
//! CommandComplete, NoticeResponse), encoding values in the format the client
//! asked for; the SQL layer only produces typed values.

use crate::error::{Result, SqlError};
use sluice_common::Oid;
use sluice_types::{Datum, SqlType};

/// One result column, as RowDescription describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputColumn {
    /// Column name.
    pub name: String,
    /// Type.
    pub ty: SqlType,
    /// Type modifier (-1 for none).
    pub typmod: i32,
    /// OID of the table the column comes from, or 0.
    pub table_oid: Oid,
    /// The column's attnum in that table, or 0.
    pub column_number: i16,
}

impl OutputColumn {
    /// A computed column (no source table).
    pub fn computed(name: impl Into<String>, ty: SqlType, typmod: i32) -> OutputColumn {
        OutputColumn { name: name.into(), ty, typmod, table_oid: 0, column_number: 0 }
    }
}

/// The receiver of a statement's results.
pub trait QuerySink {
    /// The statement returns rows with these columns.
    fn columns(&mut self, columns: &[OutputColumn]) -> Result<()>;
    /// One row (values in column order, of the announced types).
    fn row(&mut self, values: &[Datum]) -> Result<()>;
    /// The statement finished with this command tag (`SELECT 3`, `INSERT 0 1`).
    fn complete(&mut self, tag: &str) -> Result<()>;
    /// A NOTICE or WARNING for the client.
    fn notice(&mut self, notice: &SqlError) -> Result<()>;
}
