//! Replacing a view's columns by the expressions they stand for, in a raw
//! parse tree (PostgreSQL's ReplaceVarsFromTargetList in
//! `rewrite/rewriteManip.c`, done here before analysis rather than after).
//!
//! A statement written against an automatically updatable view names the
//! view's columns; rewritten onto the view's base relation, each such
//! reference becomes the view's expression for the column, itself written
//! over the base relation under the name the view's FROM gives it. The
//! walk knows the expression nodes of the raw grammar. Where it meets a
//! node it does not know that holds a column reference, it refuses the
//! statement (0A000) rather than leave a reference to the view behind.
//!
//! # Scoping
//!
//! At the statement's own level an unqualified name is a view column or
//! nothing (the view is the only relation in scope: 42703 otherwise); a
//! qualified one is the view's when its qualifier is the name the view goes
//! by. Inside a subquery an unqualified name may belong to the subquery's
//! own FROM items, which only analysis can tell, so only qualified
//! references are replaced there. An unqualified outer reference from a
//! subquery then resolves against the base relation: the same column
//! wherever the view passes a column through under its own name.

use crate::error::{position, Result, SqlError};
use crate::parser::node_str;
use pg_query::protobuf::{ColumnRef, Node};
use pg_query::NodeEnum;

/// One view column: its name and the expression it stands for.
pub(super) struct Replacement<'a> {
    pub(super) name: &'a str,
    pub(super) expr: &'a Node,
}

/// What names the view in the statement and what its columns stand for.
pub(super) struct Substitution<'a> {
    /// The name the view goes by in the statement (its alias or its name).
    pub(super) refname: &'a str,
    /// The view's columns, in order.
    pub(super) columns: Vec<Replacement<'a>>,
}

impl Substitution<'_> {
    /// The expression view column `name` stands for.
    fn column(&self, name: &str) -> Option<&Node> {
        self.columns.iter().find(|c| c.name == name).map(|c| c.expr)
    }

    /// expr -- replaces the view's columns in `node`, an expression at the
    /// statement's own level (`top`) or inside a subquery.
    pub(super) fn expr(&self, node: &mut Node, top: bool) -> Result<()> {
        let Some(inner) = node.node.as_mut() else { return Ok(()) };
        if let NodeEnum::ColumnRef(cref) = inner {
            if let Some(replacement) = self.column_ref(cref, top)? {
                *node = replacement;
            }
            return Ok(());
        }
        self.children(inner, top)
    }

    /// The replacement of a column reference, `None` to keep it.
    fn column_ref(&self, cref: &ColumnRef, top: bool) -> Result<Option<Node>> {
        let names: Vec<String> = cref.fields.iter().filter_map(node_str).collect();
        if names.len() < cref.fields.len() {
            // `*` or `v.*`: a whole-row or star reference.
            return self.star(cref, top);
        }
        let column = match names.as_slice() {
            [column] if top => column,
            [qualifier, column] if qualifier == self.refname => column,
            _ => return Ok(None),
        };
        match self.column(column) {
            Some(expr) => Ok(Some(expr.clone())),
            None => Err(SqlError::new(
                "42703",
                match names.as_slice() {
                    [_] => format!("column \"{column}\" does not exist"),
                    _ => format!("column {}.{column} does not exist", self.refname),
                },
            )
            .at(position(cref.location))),
        }
    }

    /// A `*` that is the view's: only a select list may hold one (see
    /// [`Substitution::target_list`]).
    fn star(&self, cref: &ColumnRef, top: bool) -> Result<Option<Node>> {
        let qualifier: Vec<String> = cref.fields.iter().filter_map(node_str).collect();
        let views = match qualifier.as_slice() {
            [] => top,
            [name] => name == self.refname,
            _ => false,
        };
        if views {
            return Err(whole_row(cref));
        }
        Ok(None)
    }

    /// target_list -- a RETURNING list: `*` and `v.*` become the view's
    /// columns, each under its name; other entries have their expressions
    /// replaced.
    pub(super) fn target_list(&self, list: &mut Vec<Node>) -> Result<()> {
        let mut out = Vec::with_capacity(list.len());
        for mut item in list.drain(..) {
            if let Some(NodeEnum::ResTarget(rt)) = item.node.as_mut() {
                if let Some(expanded) = self.expand_star(rt.val.as_deref())? {
                    out.extend(expanded);
                    continue;
                }
                if let Some(val) = rt.val.as_deref_mut() {
                    if rt.name.is_empty() {
                        // The output column keeps the name it would have
                        // had over the view.
                        rt.name = crate::expr::column_name(val);
                    }
                    self.expr(val, true)?;
                }
            }
            out.push(item);
        }
        *list = out;
        Ok(())
    }

    /// The view's columns as select-list entries, if `val` is a `*` of the
    /// view.
    fn expand_star(&self, val: Option<&Node>) -> Result<Option<Vec<Node>>> {
        let Some(NodeEnum::ColumnRef(cref)) = val.and_then(|v| v.node.as_ref()) else {
            return Ok(None);
        };
        let names: Vec<String> = cref.fields.iter().filter_map(node_str).collect();
        let is_star = names.len() < cref.fields.len();
        if !is_star || !(names.is_empty() || names == [self.refname]) {
            return Ok(None);
        }
        let entries = self
            .columns
            .iter()
            .map(|c| {
                let target = pg_query::protobuf::ResTarget {
                    name: c.name.to_string(),
                    indirection: Vec::new(),
                    val: Some(Box::new(c.expr.clone())),
                    location: cref.location,
                };
                Node { node: Some(NodeEnum::ResTarget(Box::new(target))) }
            })
            .collect();
        Ok(Some(entries))
    }

    /// Replaces the view's columns in the expressions under `node`.
    fn children(&self, node: &mut NodeEnum, top: bool) -> Result<()> {
        use NodeEnum::*;
        match node {
            AExpr(e) => {
                self.opt(e.lexpr.as_deref_mut(), top)?;
                self.opt(e.rexpr.as_deref_mut(), top)
            }
            BoolExpr(e) => self.all(&mut e.args, top),
            FuncCall(f) => {
                self.all(&mut f.args, top)?;
                self.all(&mut f.agg_order, top)?;
                self.opt(f.agg_filter.as_deref_mut(), top)
            }
            TypeCast(e) => self.opt(e.arg.as_deref_mut(), top),
            CollateClause(e) => self.opt(e.arg.as_deref_mut(), top),
            NullTest(e) => self.opt(e.arg.as_deref_mut(), top),
            BooleanTest(e) => self.opt(e.arg.as_deref_mut(), top),
            CaseExpr(e) => {
                self.opt(e.arg.as_deref_mut(), top)?;
                self.all(&mut e.args, top)?;
                self.opt(e.defresult.as_deref_mut(), top)
            }
            CaseWhen(e) => {
                self.opt(e.expr.as_deref_mut(), top)?;
                self.opt(e.result.as_deref_mut(), top)
            }
            CoalesceExpr(e) => self.all(&mut e.args, top),
            MinMaxExpr(e) => self.all(&mut e.args, top),
            RowExpr(e) => self.all(&mut e.args, top),
            AArrayExpr(e) => self.all(&mut e.elements, top),
            AIndirection(e) => {
                self.opt(e.arg.as_deref_mut(), top)?;
                self.all(&mut e.indirection, top)
            }
            AIndices(e) => {
                self.opt(e.lidx.as_deref_mut(), top)?;
                self.opt(e.uidx.as_deref_mut(), top)
            }
            List(l) => self.all(&mut l.items, top),
            SortBy(s) => self.opt(s.node.as_deref_mut(), top),
            ResTarget(r) => {
                self.all(&mut r.indirection, top)?;
                self.opt(r.val.as_deref_mut(), top)
            }
            MultiAssignRef(m) => self.opt(m.source.as_deref_mut(), top),
            SubLink(s) => {
                self.opt(s.testexpr.as_deref_mut(), top)?;
                self.opt(s.subselect.as_deref_mut(), false)
            }
            SelectStmt(s) => self.select(s),
            RangeSubselect(r) => self.opt(r.subquery.as_deref_mut(), false),
            JoinExpr(j) => {
                self.opt(j.larg.as_deref_mut(), false)?;
                self.opt(j.rarg.as_deref_mut(), false)?;
                self.opt(j.quals.as_deref_mut(), false)
            }
            RangeFunction(r) => self.all(&mut r.functions, false),
            AConst(_) | ParamRef(_) | SqlvalueFunction(_) | SetToDefault(_) | RangeVar(_)
            | String(_) | AStar(_) | Integer(_) => Ok(()),
            other => refuse_unknown(other),
        }
    }

    /// A subquery's clauses.
    fn select(&self, s: &mut pg_query::protobuf::SelectStmt) -> Result<()> {
        for list in [
            &mut s.target_list,
            &mut s.from_clause,
            &mut s.group_clause,
            &mut s.sort_clause,
            &mut s.distinct_clause,
        ] {
            self.all(list, false)?;
        }
        for values in &mut s.values_lists {
            self.expr(values, false)?;
        }
        self.opt(s.where_clause.as_deref_mut(), false)?;
        self.opt(s.having_clause.as_deref_mut(), false)?;
        self.opt(s.limit_count.as_deref_mut(), false)?;
        self.opt(s.limit_offset.as_deref_mut(), false)?;
        if let Some(larg) = s.larg.as_deref_mut() {
            self.select(larg)?;
        }
        if let Some(rarg) = s.rarg.as_deref_mut() {
            self.select(rarg)?;
        }
        if s.with_clause.is_some() {
            let node = NodeEnum::SelectStmt(Box::new(s.clone()));
            refuse_unknown(&node)?;
        }
        Ok(())
    }

    fn opt(&self, node: Option<&mut Node>, top: bool) -> Result<()> {
        node.map_or(Ok(()), |n| self.expr(n, top))
    }

    fn all(&self, nodes: &mut [Node], top: bool) -> Result<()> {
        nodes.iter_mut().try_for_each(|n| self.expr(n, top))
    }
}

/// 0A000 for a whole-row reference to the view (`v` or `v.*` as a value).
fn whole_row(cref: &ColumnRef) -> SqlError {
    SqlError::unsupported(
        "whole-row references to a view in a statement changing it are not supported yet",
    )
    .at(position(cref.location))
}

/// 0A000 for a node the walk does not know, if a column reference hides in it.
fn refuse_unknown(node: &NodeEnum) -> Result<()> {
    let holds_column =
        node.nodes().iter().any(|(n, ..)| matches!(n, pg_query::NodeRef::ColumnRef(_)));
    if !holds_column {
        return Ok(());
    }
    Err(SqlError::unsupported(
        "this expression in a statement changing a view is not supported yet",
    ))
}
