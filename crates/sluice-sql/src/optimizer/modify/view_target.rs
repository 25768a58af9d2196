//! INSERT, UPDATE and DELETE through a view: automatically updatable views
//! (PostgreSQL's rewriteTargetView and view_query_is_auto_updatable in
//! `rewrite/rewriteHandler.c`).
//!
//! A view whose query reads one table or view and nothing else — no
//! DISTINCT, GROUP BY, HAVING, set operation, WITH, LIMIT, aggregate or
//! window function — can be written through: the statement is rewritten
//! onto the view's base relation, and planned as if written against it.
//! The rewrite works on the raw parse tree: the target becomes the view's
//! FROM item (under the name the view's query gives it), the view's
//! columns in the statement become the expressions they stand for
//! (`view_target/substitute.rs`), the view's WHERE clause is ANDed to an
//! UPDATE's or DELETE's, and the columns an INSERT or UPDATE assigns
//! become the base columns behind them (ON CONFLICT's arbiters and DO
//! UPDATE's too, `excluded.c` becoming the view's expression for `c` over
//! the proposed row). Only view columns that are plain
//! columns of the base relation can be assigned (0A000 names the first
//! that is not). A view over a view is rewritten again, until the target
//! is a table; meeting a view twice is 42P17.
//!
//! # WITH CHECK OPTION
//!
//! A view made `WITH [LOCAL | CASCADED] CHECK OPTION` (stored as the
//! `check_option` reloption) adds its WHERE clause to the checks every row
//! an INSERT or UPDATE writes must pass (44000 otherwise; NULL fails). A
//! CASCADED check applies to the views under it as well, LOCAL only to the
//! view itself and to underlying views with check options of their own.
//! Checks run innermost view first, as the standard asks. sluice tests
//! them with the table's CHECK constraints, before the row is stored;
//! PostgreSQL tests them after the row and its index entries are in, so a
//! row breaking both a unique index and a view's check reports the unique
//! violation there and the check option here.
//!
//! # Locking
//!
//! Every view on the way is locked RowExclusive, as PostgreSQL's parser
//! locks a statement's target, and its base relation the same once the
//! rewritten statement is planned.

mod substitute;

use super::super::context::PlannerContext;
use super::super::select::{open_relation, refname, stored_select};
use crate::catalog::relation::RelationDesc;
use crate::catalog::schema::RelKind;
use crate::error::{position, Result, SqlError};
use crate::parser::node_str;
use pg_query::protobuf::{
    BoolExpr, BoolExprType, DeleteStmt, InsertStmt, Node, RangeVar, ResTarget, SelectStmt,
    UpdateStmt,
};
use pg_query::NodeEnum;
use sluice_txn::lmgr::LockMode;
use substitute::{Replacement, Substitution};

/// A view's check option, to be met by every row written through it.
pub(crate) struct ViewCheck {
    /// The view's name, for the error.
    pub(crate) view: String,
    /// Its WHERE clause over the base relation; `None` for a CASCADED
    /// check on a view without one (its underlying views' checks follow).
    pub(crate) qual: Option<Node>,
    cascaded: bool,
}

/// A statement whose target was a view, rewritten onto a table.
pub(crate) struct Rewritten {
    /// The statement over the table.
    pub(crate) stmt: NodeEnum,
    /// The check options of the views on the way, innermost first.
    pub(crate) checks: Vec<ViewCheck>,
}

/// rewrite_target_views -- `stmt` rewritten onto the table under its
/// target, if the target is a view; `None` when it is not.
pub(crate) fn rewrite_target_views(
    parts: &mut dyn PlannerContext,
    stmt: &NodeEnum,
) -> Result<Option<Rewritten>> {
    let mut current: Option<NodeEnum> = None;
    let mut checks = Vec::new();
    let mut seen = Vec::new();
    loop {
        let stmt = current.as_ref().unwrap_or(stmt);
        let rv = target_of(stmt)?;
        let rel = open_relation(parts, rv, LockMode::RowExclusive)?;
        if rel.kind != RelKind::View {
            return Ok(current.map(|stmt| Rewritten { stmt, checks }));
        }
        if seen.contains(&rel.oid) {
            return Err(SqlError::new(
                "42P17",
                format!("infinite recursion detected in rules for relation \"{}\"", rel.name),
            ));
        }
        seen.push(rel.oid);
        let view = ViewShape::load(parts, &rel, Command::of(stmt))?.named(refname(rv))?;
        let rewritten = view.rewrite(stmt, refname(rv), &mut checks)?;
        current = Some(rewritten);
    }
}

/// The relation a statement changes.
fn target_of(stmt: &NodeEnum) -> Result<&RangeVar> {
    let rv = match stmt {
        NodeEnum::InsertStmt(s) => s.relation.as_ref(),
        NodeEnum::UpdateStmt(s) => s.relation.as_ref(),
        NodeEnum::DeleteStmt(s) => s.relation.as_ref(),
        _ => None,
    };
    rv.ok_or_else(|| SqlError::internal("data-modifying statement without a target"))
}

/// What a statement does to its target, for the messages.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Command {
    Insert,
    Update,
    Delete,
}

impl Command {
    fn of(stmt: &NodeEnum) -> Command {
        match stmt {
            NodeEnum::InsertStmt(_) => Command::Insert,
            NodeEnum::UpdateStmt(_) => Command::Update,
            _ => Command::Delete,
        }
    }

    /// 55000 for a view that cannot be written through, with why.
    fn not_updatable(self, view: &str, detail: &str) -> SqlError {
        let (message, hint) = match self {
            Command::Insert => (
                format!("cannot insert into view \"{view}\""),
                "To enable inserting into the view, provide an INSTEAD OF INSERT trigger or an unconditional ON INSERT DO INSTEAD rule.",
            ),
            Command::Update => (
                format!("cannot update view \"{view}\""),
                "To enable updating the view, provide an INSTEAD OF UPDATE trigger or an unconditional ON UPDATE DO INSTEAD rule.",
            ),
            Command::Delete => (
                format!("cannot delete from view \"{view}\""),
                "To enable deleting from the view, provide an INSTEAD OF DELETE trigger or an unconditional ON DELETE DO INSTEAD rule.",
            ),
        };
        SqlError::new("55000", message).with_detail(detail).with_hint(hint)
    }

    /// 0A000 for assigning view column `column`, which is no base column.
    fn column_not_updatable(self, column: &str, view: &str, detail: &str) -> SqlError {
        let message = match self {
            Command::Insert => format!("cannot insert into column \"{column}\" of view \"{view}\""),
            _ => format!("cannot update column \"{column}\" of view \"{view}\""),
        };
        SqlError::new("0A000", message).with_detail(detail)
    }
}

/// A view's column: its name, the expression it stands for, and the base
/// column behind it (or why there is none).
struct ViewColumn {
    name: String,
    expr: Node,
    base: std::result::Result<String, &'static str>,
}

/// What of an updatable view the rewrite needs.
struct ViewShape {
    name: String,
    command: Command,
    base: RangeVar,
    /// The base relation's columns, system columns too.
    base_columns: Vec<String>,
    columns: Vec<ViewColumn>,
    qual: Option<Node>,
    check_option: Option<CheckOption>,
}

/// `check_option` of a view.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CheckOption {
    Local,
    Cascaded,
}

impl ViewShape {
    /// load -- view `rel`'s query, 55000 if `command` cannot go through it.
    fn load(parts: &mut dyn PlannerContext, rel: &RelationDesc, command: Command) -> Result<Self> {
        let query = stored_select(parts, rel)?;
        let check_cols = command != Command::Delete;
        if let Some(detail) = not_auto_updatable(&query) {
            return Err(command.not_updatable(&rel.name, detail));
        }
        let base = match query.from_clause.first().and_then(|n| n.node.as_ref()) {
            Some(NodeEnum::RangeVar(rv)) => rv.clone(),
            _ => return Err(command.not_updatable(&rel.name, SINGLE_RELATION)),
        };
        let base_rel = open_relation(parts, &base, LockMode::RowExclusive)?;
        if !matches!(base_rel.kind, RelKind::Table | RelKind::View) {
            return Err(command.not_updatable(&rel.name, SINGLE_RELATION));
        }
        let columns = view_columns(rel, &query, &base, &base_rel)?;
        let base_columns = base_rel
            .live_columns()
            .map(|i| base_rel.columns[i].name.clone())
            .chain(SYSTEM_COLUMNS.iter().map(|c| c.to_string()))
            .collect();
        if check_cols && columns.iter().all(|c| c.base.is_err()) {
            return Err(command.not_updatable(&rel.name, NO_UPDATABLE_COLUMNS));
        }
        Ok(ViewShape {
            name: rel.name.clone(),
            command,
            base,
            base_columns,
            columns,
            qual: query.where_clause.map(|w| *w),
            check_option: check_option_of(rel),
        })
    }

    /// named -- the view with its base relation going by `refname`, the
    /// name the statement gives the view: the expressions of its columns
    /// and its WHERE clause read the base relation's columns under that
    /// name. A subquery of the statement that names the view's columns
    /// (`v.x`) then reads the base relation's, even where the subquery
    /// reads the base table itself under the name the view's query used.
    fn named(mut self, refname: &str) -> Result<ViewShape> {
        let qualified: Vec<Node> =
            self.base_columns.iter().map(|c| column_ref(refname, c)).collect();
        let requalify = Substitution {
            refname: super::super::select::refname(&self.base),
            columns: self
                .base_columns
                .iter()
                .zip(&qualified)
                .map(|(name, expr)| Replacement { name, expr })
                .collect(),
        };
        for column in &mut self.columns {
            requalify.expr(&mut column.expr, true)?;
        }
        if let Some(qual) = self.qual.as_mut() {
            requalify.expr(qual, true)?;
        }
        self.base.alias = Some(pg_query::protobuf::Alias {
            aliasname: refname.to_string(),
            colnames: Vec::new(),
        });
        Ok(self)
    }

    /// rewrite -- `stmt`, whose target is this view under `refname`, onto
    /// the view's base relation; the view's check option joins `checks`.
    fn rewrite(
        &self,
        stmt: &NodeEnum,
        refname: &str,
        checks: &mut Vec<ViewCheck>,
    ) -> Result<NodeEnum> {
        let substitution = Substitution {
            refname,
            columns: self
                .columns
                .iter()
                .map(|c| Replacement { name: &c.name, expr: &c.expr })
                .collect(),
        };
        for check in checks.iter_mut() {
            if let Some(qual) = check.qual.as_mut() {
                substitution.expr(qual, true)?;
            }
        }
        let rewritten = match stmt {
            NodeEnum::UpdateStmt(u) => {
                NodeEnum::UpdateStmt(Box::new(self.update(u, &substitution)?))
            }
            NodeEnum::DeleteStmt(d) => {
                NodeEnum::DeleteStmt(Box::new(self.delete(d, &substitution)?))
            }
            NodeEnum::InsertStmt(i) => {
                NodeEnum::InsertStmt(Box::new(self.insert(i, &substitution)?))
            }
            _ => return Err(SqlError::internal("not a data-modifying statement")),
        };
        if self.command != Command::Delete {
            self.add_check(checks);
        }
        Ok(rewritten)
    }

    fn update(&self, stmt: &UpdateStmt, sub: &Substitution) -> Result<UpdateStmt> {
        let mut out = stmt.clone();
        out.relation = Some(self.base.clone());
        for target in &mut out.target_list {
            let Some(NodeEnum::ResTarget(rt)) = target.node.as_mut() else { continue };
            rt.name = self.assigned_column(rt)?;
            sub.expr(target, true)?;
        }
        out.where_clause = self.with_view_qual(out.where_clause.take(), sub)?;
        if let Some(returning) = out.returning_clause.as_mut() {
            sub.target_list(&mut returning.exprs)?;
        }
        Ok(out)
    }

    fn delete(&self, stmt: &DeleteStmt, sub: &Substitution) -> Result<DeleteStmt> {
        let mut out = stmt.clone();
        out.relation = Some(self.base.clone());
        out.where_clause = self.with_view_qual(out.where_clause.take(), sub)?;
        if let Some(returning) = out.returning_clause.as_mut() {
            sub.target_list(&mut returning.exprs)?;
        }
        Ok(out)
    }

    fn insert(&self, stmt: &InsertStmt, sub: &Substitution) -> Result<InsertStmt> {
        let mut out = stmt.clone();
        if let Some(clause) = out.on_conflict_clause.as_deref_mut() {
            self.on_conflict(clause, sub)?;
        }
        out.relation = Some(self.base.clone());
        if out.cols.is_empty() {
            out.cols = self.implicit_columns(stmt.select_stmt.as_deref());
        }
        for col in &mut out.cols {
            let Some(NodeEnum::ResTarget(rt)) = col.node.as_mut() else { continue };
            rt.name = self.assigned_column(rt)?;
        }
        if let Some(returning) = out.returning_clause.as_mut() {
            sub.target_list(&mut returning.exprs)?;
        }
        Ok(out)
    }

    /// ON CONFLICT of an INSERT through the view: the arbiter columns
    /// become the base columns (or expressions) behind them, DO UPDATE's
    /// assignments base columns, and `excluded.c` the view's expression
    /// for `c` over the row proposed for insertion.
    fn on_conflict(
        &self,
        clause: &mut pg_query::protobuf::OnConflictClause,
        sub: &Substitution,
    ) -> Result<()> {
        let excluded_exprs = self.over_excluded(sub.refname)?;
        let excluded = Substitution {
            refname: "excluded",
            columns: self
                .columns
                .iter()
                .zip(&excluded_exprs)
                .map(|(c, expr)| Replacement { name: &c.name, expr })
                .collect(),
        };
        if let Some(infer) = clause.infer.as_deref_mut() {
            if !infer.conname.is_empty() {
                // PostgreSQL looks the constraint up on the view itself.
                return Err(SqlError::new(
                    "42704",
                    format!(
                        "constraint \"{}\" for table \"{}\" does not exist",
                        infer.conname, self.name
                    ),
                ));
            }
            for elem in &mut infer.index_elems {
                let Some(NodeEnum::IndexElem(e)) = elem.node.as_mut() else { continue };
                let Some(column) = self.columns.iter().find(|c| c.name == e.name) else { continue };
                match &column.base {
                    Ok(base) => e.name = base.clone(),
                    Err(_) => {
                        e.name = String::new();
                        e.expr = Some(Box::new(column.expr.clone()));
                    }
                }
            }
            if let Some(qual) = infer.where_clause.as_deref_mut() {
                sub.expr(qual, true)?;
            }
        }
        for target in &mut clause.target_list {
            let Some(NodeEnum::ResTarget(rt)) = target.node.as_mut() else { continue };
            rt.name = self.assigned_column(rt)?;
            self.refuse_ambiguous(target)?;
            sub.expr(target, true)?;
            excluded.expr(target, false)?;
        }
        if let Some(qual) = clause.where_clause.as_deref_mut() {
            self.refuse_ambiguous(qual)?;
            sub.expr(qual, true)?;
            excluded.expr(qual, false)?;
        }
        Ok(())
    }

    /// 42702 for an unqualified view column in DO UPDATE, where both the
    /// view and `excluded` have it.
    fn refuse_ambiguous(&self, node: &Node) -> Result<()> {
        let Some(inner) = node.node.as_ref() else { return Ok(()) };
        for (n, ..) in inner.nodes() {
            let pg_query::NodeRef::ColumnRef(cref) = n else { continue };
            let [field] = cref.fields.as_slice() else { continue };
            let Some(name) = node_str(field) else { continue };
            if self.columns.iter().any(|c| c.name == name) {
                return Err(SqlError::new(
                    "42702",
                    format!("column reference \"{name}\" is ambiguous"),
                )
                .at(position(cref.location)));
            }
        }
        Ok(())
    }

    /// The view's column expressions over the row proposed for insertion
    /// (`excluded`) instead of the base relation named `refname`.
    fn over_excluded(&self, refname: &str) -> Result<Vec<Node>> {
        let to_excluded: Vec<Node> =
            self.base_columns.iter().map(|c| column_ref("excluded", c)).collect();
        let requalify = Substitution {
            refname,
            columns: self
                .base_columns
                .iter()
                .zip(&to_excluded)
                .map(|(name, expr)| Replacement { name, expr })
                .collect(),
        };
        let mut exprs = Vec::with_capacity(self.columns.len());
        for column in &self.columns {
            let mut expr = column.expr.clone();
            requalify.expr(&mut expr, false)?;
            exprs.push(expr);
        }
        Ok(exprs)
    }

    /// The view columns an INSERT without a column list fills: as many as
    /// the source gives values, in order (PostgreSQL's transformInsertStmt).
    fn implicit_columns(&self, source: Option<&Node>) -> Vec<Node> {
        let given = match source.and_then(|n| n.node.as_ref()) {
            Some(NodeEnum::SelectStmt(s)) => source_width(s).unwrap_or(self.columns.len()),
            _ => 0,
        };
        self.columns
            .iter()
            .take(given.min(self.columns.len()))
            .map(|c| {
                let target = ResTarget { name: c.name.clone(), location: -1, ..Default::default() };
                Node { node: Some(NodeEnum::ResTarget(Box::new(target))) }
            })
            .collect()
    }

    /// The base column an INSERT or UPDATE target of the view stands for.
    fn assigned_column(&self, rt: &ResTarget) -> Result<String> {
        let Some(column) = self.columns.iter().find(|c| c.name == rt.name) else {
            return Err(SqlError::new(
                "42703",
                format!("column \"{}\" of relation \"{}\" does not exist", rt.name, self.name),
            )
            .at(position(rt.location)));
        };
        column
            .base
            .clone()
            .map_err(|detail| self.command.column_not_updatable(&rt.name, &self.name, detail))
    }

    /// An UPDATE's or DELETE's WHERE clause, view columns replaced, ANDed
    /// with the view's own.
    fn with_view_qual(
        &self,
        clause: Option<Box<Node>>,
        sub: &Substitution,
    ) -> Result<Option<Box<Node>>> {
        let user = match clause {
            Some(mut node) => {
                sub.expr(&mut node, true)?;
                Some(*node)
            }
            None => None,
        };
        let combined = match (user, self.qual.clone()) {
            (Some(user), Some(view)) => Some(and(user, view)),
            (one, other) => one.or(other),
        };
        Ok(combined.map(Box::new))
    }

    /// Adds the view's check option to `checks`, as rewriteTargetView does:
    /// a CASCADED option of the view above makes this one's CASCADED too.
    fn add_check(&self, checks: &mut Vec<ViewCheck>) {
        let mut has_check = self.check_option.is_some();
        let mut cascaded = self.check_option == Some(CheckOption::Cascaded);
        if checks.first().is_some_and(|above| above.cascaded) {
            has_check = true;
            cascaded = true;
        }
        if has_check && (cascaded || self.qual.is_some()) {
            let check = ViewCheck { view: self.name.clone(), qual: self.qual.clone(), cascaded };
            checks.insert(0, check);
        }
    }
}

const SINGLE_RELATION: &str =
    "Views that do not select from a single table or view are not automatically updatable.";
const NO_UPDATABLE_COLUMNS: &str =
    "Views that have no updatable columns are not automatically updatable.";

/// Why a view's query cannot be written through, if it cannot
/// (PostgreSQL's view_query_is_auto_updatable, before the columns).
pub(crate) fn not_auto_updatable(query: &SelectStmt) -> Option<&'static str> {
    let set_operation = query.op != pg_query::protobuf::SetOperation::SetopNone as i32;
    let reasons: [(bool, &'static str); 9] = [
        (
            !query.distinct_clause.is_empty(),
            "Views containing DISTINCT are not automatically updatable.",
        ),
        (
            !query.group_clause.is_empty(),
            "Views containing GROUP BY are not automatically updatable.",
        ),
        (query.having_clause.is_some(), "Views containing HAVING are not automatically updatable."),
        (
            set_operation,
            "Views containing UNION, INTERSECT, or EXCEPT are not automatically updatable.",
        ),
        (query.with_clause.is_some(), "Views containing WITH are not automatically updatable."),
        (
            query.limit_count.is_some() || query.limit_offset.is_some(),
            "Views containing LIMIT or OFFSET are not automatically updatable.",
        ),
        (
            query.target_list.iter().any(calls_aggregate),
            "Views that return aggregate functions are not automatically updatable.",
        ),
        (
            query.target_list.iter().any(calls_window_function),
            "Views that return window functions are not automatically updatable.",
        ),
        (query.from_clause.len() != 1, SINGLE_RELATION),
    ];
    reasons.into_iter().find(|(applies, _)| *applies).map(|(_, why)| why)
}

/// Whether `node` calls an aggregate outside any subquery.
fn calls_aggregate(node: &Node) -> bool {
    function_calls(node).iter().any(|f| {
        f.over.is_none()
            && f.funcname.last().and_then(node_str).is_some_and(|n| crate::expr::is_aggregate(&n))
    })
}

/// Whether `node` calls a window function outside any subquery.
fn calls_window_function(node: &Node) -> bool {
    function_calls(node).iter().any(|f| f.over.is_some())
}

/// The function calls in `node`, not counting those in subqueries.
fn function_calls(node: &Node) -> Vec<pg_query::protobuf::FuncCall> {
    let Some(inner) = node.node.as_ref() else { return Vec::new() };
    let mut in_subqueries = Vec::new();
    let mut calls = Vec::new();
    for (n, ..) in inner.nodes() {
        match n {
            pg_query::NodeRef::SubLink(s) => {
                if let Some(sub) = s.subselect.as_deref().and_then(|n| n.node.as_ref()) {
                    in_subqueries.extend(sub.nodes().into_iter().filter_map(|(n, ..)| match n {
                        pg_query::NodeRef::FuncCall(f) => Some(f.location),
                        _ => None,
                    }));
                }
            }
            pg_query::NodeRef::FuncCall(f) => calls.push(f.clone()),
            _ => {}
        }
    }
    calls.retain(|f| !in_subqueries.contains(&f.location));
    calls
}

/// updatable_columns -- for each column of `view` (whose query is
/// `query`, reading `base_rel` as `base`), the index of the base column
/// behind it, if it is a plain one.
pub(crate) fn updatable_columns(
    view: &RelationDesc,
    query: &SelectStmt,
    base: &RangeVar,
    base_rel: &RelationDesc,
) -> Result<Vec<Option<usize>>> {
    let columns = view_columns(view, query, base, base_rel)?;
    Ok(columns
        .iter()
        .map(|c| c.base.as_ref().ok().and_then(|name| base_rel.column_index(name)))
        .collect())
}

/// The view's columns: each live column of `view` with the expression of
/// the query's select list behind it.
fn view_columns(
    view: &RelationDesc,
    query: &SelectStmt,
    base: &RangeVar,
    base_rel: &RelationDesc,
) -> Result<Vec<ViewColumn>> {
    let names: Vec<&str> = view.live_columns().map(|i| view.columns[i].name.as_str()).collect();
    let exprs: Vec<&Node> = query
        .target_list
        .iter()
        .filter_map(|t| match t.node.as_ref() {
            Some(NodeEnum::ResTarget(rt)) => rt.val.as_deref(),
            _ => None,
        })
        .collect();
    if exprs.len() != names.len() {
        return Err(SqlError::internal(format!(
            "view \"{}\" has {} columns but its query returns {}",
            view.name,
            names.len(),
            exprs.len()
        )));
    }
    Ok(names
        .into_iter()
        .zip(exprs)
        .map(|(name, expr)| ViewColumn {
            name: name.to_string(),
            expr: expr.clone(),
            base: base_column(expr, refname(base), base_rel),
        })
        .collect())
}

/// The base column a view column's expression is, or why it is none
/// (PostgreSQL's view_col_is_auto_updatable).
fn base_column(
    expr: &Node,
    base_refname: &str,
    base_rel: &RelationDesc,
) -> std::result::Result<String, &'static str> {
    const NOT_A_COLUMN: &str =
        "View columns that are not columns of their base relation are not updatable.";
    let Some(NodeEnum::ColumnRef(cref)) = expr.node.as_ref() else { return Err(NOT_A_COLUMN) };
    let names: Vec<String> = cref.fields.iter().filter_map(node_str).collect();
    let column = match names.as_slice() {
        _ if names.len() < cref.fields.len() => {
            return Err("View columns that are whole-row references are not updatable.")
        }
        [column] => column,
        [qualifier, column] if qualifier == base_refname => column,
        _ => return Err(NOT_A_COLUMN),
    };
    if base_rel.column_index(column).is_some() {
        Ok(column.clone())
    } else {
        Err("View columns that refer to system columns are not updatable.")
    }
}

/// How many values a query gives, when its select list says (no `*`).
fn source_width(select: &SelectStmt) -> Option<usize> {
    if let Some(first) = select.values_lists.first() {
        return match first.node.as_ref() {
            Some(NodeEnum::List(l)) => Some(l.items.len()),
            _ => None,
        };
    }
    let has_star = select.target_list.iter().any(|t| {
        t.node.as_ref().is_some_and(|n| {
            n.nodes().iter().any(|(n, ..)| matches!(n, pg_query::NodeRef::AStar(_)))
        })
    });
    (!has_star && select.op == pg_query::protobuf::SetOperation::SetopNone as i32)
        .then_some(select.target_list.len())
}

/// `check_option` from a view's reloptions.
fn check_option_of(rel: &RelationDesc) -> Option<CheckOption> {
    match crate::catalog::relation::reloption(rel.options.as_deref(), "check_option")? {
        "local" => Some(CheckOption::Local),
        "cascaded" => Some(CheckOption::Cascaded),
        _ => None,
    }
}

/// The system columns a view's query may read.
const SYSTEM_COLUMNS: [&str; 6] = ["ctid", "xmin", "xmax", "cmin", "cmax", "tableoid"];

/// `qualifier.column`.
fn column_ref(qualifier: &str, column: &str) -> Node {
    let name = |s: &str| Node {
        node: Some(NodeEnum::String(pg_query::protobuf::String { sval: s.to_string() })),
    };
    let cref =
        pg_query::protobuf::ColumnRef { fields: vec![name(qualifier), name(column)], location: -1 };
    Node { node: Some(NodeEnum::ColumnRef(cref)) }
}

/// `a AND b`.
fn and(a: Node, b: Node) -> Node {
    let expr = BoolExpr {
        xpr: None,
        boolop: BoolExprType::AndExpr as i32,
        args: vec![a, b],
        location: -1,
    };
    Node { node: Some(NodeEnum::BoolExpr(Box::new(expr))) }
}
