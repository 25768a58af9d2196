//! The nested-loop join node: for each outer row, a pass over the inner
//! side, either materialised once (kept in a tuplestore, on disk past
//! `work_mem`) or, for a LATERAL inner side, run again with the outer
//! row's values in its parameter slots (PostgreSQL's NestLoopParam).

use super::*;

pub(super) struct NestLoopSource<'e> {
    /// The plan node's key, for counting rejected pairs.
    pub(super) key: usize,
    pub(super) outer: Source<'e>,
    pub(super) inner: Inner<'e>,
    pub(super) kind: JoinKind,
    pub(super) qual: Option<&'e Expr>,
    pub(super) inner_width: usize,
    /// The outer row being joined, while its pass over the inner side lasts.
    pub(super) current: Option<Vec<Datum>>,
    /// Whether some inner row matched `current` (for LEFT joins).
    pub(super) matched: bool,
}

/// The inner side of a nested loop.
pub(super) enum Inner<'e> {
    /// Independent of the outer row: run once (at the first outer row), kept
    /// in a tuplestore (PostgreSQL's Material node), read again per outer row.
    Materialised { source: Option<Source<'e>>, rows: Option<TupleStore>, cursor: Cursor },
    /// LATERAL: run again for each outer row with the slots set from it.
    Rescanned {
        plan: &'e Plan,
        engine: &'e Engine,
        ctx: VisibilityContext<'e>,
        params: &'e [(usize, Expr)],
        ctes: &'e [usize],
        source: Option<Source<'e>>,
    },
}

impl<'e> Inner<'e> {
    /// restart -- starts a pass over the inner side for the outer row `outer`.
    fn restart(&mut self, outer: &[Datum], host: &mut ExecHost<'e, '_>) -> Result<()> {
        match self {
            Inner::Materialised { source, rows, cursor } => {
                if let Some(mut input) = source.take() {
                    let mut store = TupleStore::new(&host.temp_space());
                    while let Some(r) = input.next(host)? {
                        store.push(r)?;
                    }
                    *rows = Some(store);
                }
                cursor.rewind();
            }
            Inner::Rescanned { plan, engine, ctx, params, ctes, source } => {
                for (slot, value) in params.iter() {
                    let value = eval(value, outer, host)?;
                    host.subplans.set_param(*slot, value)?;
                }
                host.subplans.reset_ctes(ctes);
                *source = Some(open(plan, engine, ctx)?);
            }
        }
        Ok(())
    }

    /// append_next -- appends the pass's next inner row to `joined`; false
    /// (leaving `joined` alone) when the pass is over.
    fn append_next(
        &mut self,
        joined: &mut Vec<Datum>,
        host: &mut ExecHost<'e, '_>,
    ) -> Result<bool> {
        match self {
            Inner::Materialised { rows, cursor, .. } => {
                let Some(row) = rows.as_ref().map(|r| r.read(cursor)).transpose()?.flatten() else {
                    return Ok(false);
                };
                joined.extend(row);
                Ok(true)
            }
            Inner::Rescanned { source, .. } => {
                let Some(row) = source.as_mut().map(|s| s.next(host)).transpose()?.flatten() else {
                    return Ok(false);
                };
                joined.extend(row);
                Ok(true)
            }
        }
    }
}

impl<'e> RowSource<'e> for NestLoopSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        loop {
            if self.current.is_none() {
                let Some(row) = self.outer.next(host)? else { return Ok(None) };
                self.inner.restart(&row, host)?;
                (self.current, self.matched) = (Some(row), false);
            }
            let outer = self.current.as_ref().expect("set");
            let mut joined = outer.clone();
            while self.inner.append_next(&mut joined, host)? {
                host.check_interrupts()?;
                if self.qual.map_or(Ok(true), |q| eval_qual(q, &joined, host))? {
                    self.matched = true;
                    return Ok(Some(joined));
                }
                instrument::count(self.key, instrument::Counter::JoinRemoved, 1);
                joined.truncate(outer.len());
            }
            let unmatched_left = self.kind == JoinKind::Left && !self.matched;
            self.current = None;
            if unmatched_left {
                joined.extend(std::iter::repeat_n(Datum::Null, self.inner_width));
                return Ok(Some(joined));
            }
        }
    }
}
