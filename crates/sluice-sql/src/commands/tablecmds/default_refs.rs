//! What a column default depends on: the relations it names through
//! `regclass` (`nextval('s'::regclass)`), as PostgreSQL's
//! recordDependencyOnExpr finds them in the cooked default.
//!
//! The dependency is normal: dropping the sequence alone needs CASCADE
//! (which drops the default), and pg_dump, which orders objects by
//! `pg_depend`, creates the sequence before the default that calls it.
//! A serial column's default records its sequence when the sequence is
//! made (`tablecmds.rs`); this is for the defaults SQL writes, such as a
//! restored dump's `ALTER TABLE ... SET DEFAULT nextval(...)`.

use sluice_access::heap::visibility::VisibilityContext;
use sluice_common::Oid;
use sluice_types::{Datum, RegKind, SqlType};

use crate::catalog::depend::{self, DepType, Dependency, ObjectAddress, ATTRDEF_CLASS};
use crate::error::Result;
use crate::executor::context::BackendContext;
use crate::executor::host::ExecHost;
use crate::expr::{analyze, eval, Builtin, Expr, Scope, SessionFunction};
use crate::optimizer::planhost::PlanHost;

/// analyze_default -- default text `default` analysed (not yet cast to
/// its column's type), for [`record_default_references`] where no cooked
/// default is at hand (CREATE TABLE).
pub(super) fn analyze_default(cx: &mut dyn BackendContext, default: &str) -> Result<Expr> {
    let mut params = Vec::new();
    let mut host = PlanHost::new(&mut params).with_types(cx.type_catalog()?);
    let text = crate::catalog::relation::evaluable_default(default);
    // Analysed on its own, so a position would point into the wrong text.
    let unplaced = |mut e: crate::error::SqlError| {
        e.position = None;
        e
    };
    let node = crate::parser::parse_expr(&text, "column default").map_err(unplaced)?;
    analyze(&node, &Scope::default(), &mut host).map_err(unplaced)
}

/// record_default_references -- records that default `attrdef`, analysed
/// as `expr`, depends on each relation it names by `regclass`.
pub(super) fn record_default_references(
    cx: &mut dyn BackendContext,
    attrdef: Oid,
    expr: &Expr,
) -> Result<()> {
    let mut named = Vec::new();
    regclass_references(expr, &mut named);
    let relations = relation_oids(cx, &named)?;
    let (engine, db) = (cx.engine().clone(), cx.database());
    let txn = cx.txn()?;
    for relation in relations {
        let dependency = Dependency {
            object: ObjectAddress { classid: ATTRDEF_CLASS, objid: attrdef, objsubid: 0 },
            referenced: ObjectAddress::relation(relation),
            kind: DepType::Normal,
        };
        depend::record(&engine, db, txn, &dependency)?;
    }
    Ok(())
}

/// The `regclass` values in `e`: constant OIDs, names looked up when
/// evaluated (`'s'::regclass`), and the names the sequence functions take
/// as text (`nextval('s')` keeps its argument as the name).
fn regclass_references(e: &Expr, found: &mut Vec<Expr>) {
    let regclass = SqlType::Reg(RegKind::Class);
    let lookup = |name: &Expr| Expr::Call {
        func: Builtin::Session(SessionFunction::RegIn(RegKind::Class)),
        args: vec![name.clone()],
        ty: regclass,
        location: None,
    };
    match e {
        Expr::Const { ty, .. } if *ty == regclass => found.push(e.clone()),
        Expr::Call { func: Builtin::Session(SessionFunction::RegIn(RegKind::Class)), .. }
            if !e.contains_column() =>
        {
            found.push(e.clone())
        }
        Expr::Call { func: Builtin::Session(f), args, .. } if names_sequence(*f) => {
            match args.first() {
                Some(name @ Expr::Const { ty: SqlType::Text, .. }) => found.push(lookup(name)),
                _ => args.iter().for_each(|a| regclass_references(a, found)),
            }
        }
        _ => e.children().into_iter().for_each(|child| regclass_references(child, found)),
    }
}

/// Whether `f` takes a sequence as its first argument.
fn names_sequence(f: SessionFunction) -> bool {
    matches!(f, SessionFunction::Nextval | SessionFunction::Currval | SessionFunction::Setval)
}

/// The relations the `regclass` expressions stand for (each once).
fn relation_oids(cx: &mut dyn BackendContext, named: &[Expr]) -> Result<Vec<Oid>> {
    let mut parts = cx.parts()?;
    let ctx = VisibilityContext::for_transaction(parts.txn, parts.engine.txns());
    let mut host = ExecHost::new(&mut parts.env, Vec::new(), ctx);
    let mut oids = Vec::new();
    for e in named {
        if let Datum::Oid(oid) = eval(e, &[], &mut host)? {
            if !oids.contains(&oid) {
                oids.push(oid);
            }
        }
    }
    Ok(oids)
}
