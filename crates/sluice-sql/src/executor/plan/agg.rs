//! Grouping and aggregation (PostgreSQL's `nodeAgg.c`): Aggregate,
//! GroupAggregate and HashAggregate, within `work_mem`.
//!
//! Each output row is a group's first input row followed by its aggregate
//! results. A [`Group`] advances the aggregate states row by row, so only
//! the group's first row, its states and the values its DISTINCT
//! aggregates have seen are kept, never the group's rows.
//!
//! * **No GROUP BY**: one group over the whole input (NULLs for the first
//!   row of an empty input).
//! * **Sorted** (GroupAggregate): the input, each row behind its key
//!   values, goes through a [`TupleSort`] (in memory or an external merge)
//!   and groups are read off the sorted stream one at a time, in key order.
//! * **Hashed** (HashAggregate): groups in a hash table, emitted in the
//!   order their first rows came. When the table passes `work_mem ×
//!   hash_mem_multiplier`, no new group enters it; the rows of groups not
//!   in it go, each behind its key and input position, to an external sort
//!   instead. Every group in the table was first seen before the table
//!   filled and every spilled group after, so the table's groups are
//!   emitted first; the spilled ones are grouped by sorting on (key,
//!   position) and then sorted once more on their first row's position, so
//!   first-seen order holds exactly. PostgreSQL instead writes the rows of
//!   missing groups to hash partitions and aggregates each later
//!   (`hash_spill`); sorting keeps this code small at the cost of a second
//!   sort over the (far fewer) spilled groups.
//!
//! Keys are equal when `compare::cmp` says so, NULL equal to NULL (GROUP
//! BY puts NULL keys in one group). An aggregate state's own growth
//! (`array_agg`) is not counted against the limit.
//!
//! An aggregate with ORDER BY inside its call (`string_agg(x, ',' ORDER
//! BY y)`) keeps its group's values with their sort keys instead of
//! advancing at once, and advances over them in key order (stably, so
//! equal keys keep input order) when the group finishes — PostgreSQL's
//! per-aggregate sort in `nodeAgg.c`, held in memory here.

use super::instrument::{self, Counter};
use super::{ExecHost, RowSource, SortKey, Source};
use crate::error::Result;
use crate::executor::host::AggCall;
use crate::executor::spill::tuplesort::{compare_rows, Sorted, TupleSort};
use crate::executor::spill::{row_size, TempSpace};
use crate::expr::{eval, EvalHost, Expr};
use sluice_types::compare::{cmp, hash};
use sluice_types::{AggKind, AggState, Datum, SqlType};
use std::collections::HashMap;
use std::rc::Rc;

/// A row.
type Row = Vec<Datum>;

/// What the aggregation computes, from the plan node.
pub(super) struct AggSpec<'e> {
    /// GROUP BY expressions over the input row.
    pub keys: &'e [Expr],
    /// The aggregate calls.
    pub aggs: &'e [AggCall],
    /// Columns of an input row (for the NULL row of an empty input).
    pub input_width: usize,
    /// HashAggregate rather than GroupAggregate.
    pub hashed: bool,
    /// The plan node's key (EXPLAIN ANALYZE's sort space).
    pub key: usize,
}

/// A running aggregation.
pub(super) struct AggregateSource<'e> {
    input: Option<Source<'e>>,
    spec: AggSpec<'e>,
    output: Output,
}

/// Where the next output row comes from.
enum Output {
    /// Not started.
    Pending,
    /// Rows computed already (no GROUP BY: the one group).
    Ready(std::vec::IntoIter<Row>),
    /// A sorted stream of `key ++ row`, grouped as it is read.
    Sorted(SortedGroups),
    /// A hash table's groups in first-seen order, then the spilled groups.
    Hashed { table: std::vec::IntoIter<Group>, spilled: Option<SortedGroups> },
    /// The spilled groups' rows behind their first positions, sorted on them.
    Reordered(Sorted),
}

impl<'e> AggregateSource<'e> {
    pub(super) fn new(input: Source<'e>, spec: AggSpec<'e>) -> AggregateSource<'e> {
        AggregateSource { input: Some(input), spec, output: Output::Pending }
    }

    /// start -- reads the input (into one group, a sort or a hash table).
    fn start(&mut self, mut input: Source<'e>, host: &mut ExecHost<'e, '_>) -> Result<Output> {
        if self.spec.keys.is_empty() {
            let mut group: Option<Group> = None;
            while let Some(row) = input.next(host)? {
                match &mut group {
                    Some(g) => g.advance(self.spec.aggs, &row, host)?,
                    None => group = Some(Group::start(self.spec.aggs, row, host)?),
                }
            }
            let group = match group {
                Some(g) => g,
                None => Group::empty(self.spec.aggs, self.spec.input_width)?,
            };
            return Ok(Output::Ready(vec![group.finish(self.spec.aggs)?].into_iter()));
        }
        let space = host.temp_space();
        if self.spec.hashed {
            return self.hash(input, &space, host);
        }
        let width = self.spec.keys.len();
        let mut sort = TupleSort::new(&space, ascending(0..width));
        while let Some(row) = input.next(host)? {
            let mut keyed = self.key_of(&row, host)?;
            keyed.extend(row);
            sort.put(keyed)?;
        }
        Ok(Output::Sorted(self.sorted_groups(sort, width)?))
    }

    /// The key values of `row`.
    fn key_of(&self, row: &[Datum], host: &mut ExecHost) -> Result<Row> {
        self.spec.keys.iter().map(|k| eval(k, row, host)).collect()
    }

    /// Groups of the sorted `sort`, whose rows carry `prefix` columns (the
    /// key, and maybe a position) before the input row.
    fn sorted_groups(&self, sort: TupleSort, prefix: usize) -> Result<SortedGroups> {
        let rows = sort.finish()?;
        if let Some(bytes) = rows.disk_bytes() {
            instrument::count(self.spec.key, Counter::SortDisk, bytes);
        }
        Ok(SortedGroups { rows, ahead: None, width: self.spec.keys.len(), prefix })
    }

    /// hash -- HashAggregate's input pass (see the module doc).
    fn hash(
        &self,
        mut input: Source<'e>,
        space: &Rc<TempSpace>,
        host: &mut ExecHost<'e, '_>,
    ) -> Result<Output> {
        let mut table: HashMap<u64, Vec<usize>> = HashMap::new();
        let mut groups: Vec<Group> = Vec::new();
        let mut bytes = 0usize;
        let mut spill: Option<TupleSort> = None;
        let width = self.spec.keys.len();
        let mut position = 0i64;
        while let Some(row) = input.next(host)? {
            let key = self.key_of(&row, host)?;
            let hash = hash_row(&key);
            let found = table
                .get(&hash)
                .and_then(|c| c.iter().copied().find(|&i| same_key(&groups[i].key, &key)));
            if let Some(i) = found {
                let before = groups[i].bytes;
                groups[i].advance(self.spec.aggs, &row, host)?;
                bytes += groups[i].bytes - before;
            } else if spill.is_none() && bytes <= space.hash_mem() {
                table.entry(hash).or_default().push(groups.len());
                let mut group = Group::start(self.spec.aggs, row, host)?;
                group.bytes += row_size(&key) + HASH_ENTRY;
                group.key = key;
                bytes += group.bytes;
                groups.push(group);
            } else {
                // Sorted on the key, then the position (the input order).
                let sort = spill.get_or_insert_with(|| TupleSort::new(space, ascending(0..=width)));
                let mut spilled = key;
                spilled.push(Datum::Int8(position));
                spilled.extend(row);
                sort.put(spilled)?;
            }
            position += 1;
        }
        let spilled = spill.map(|sort| self.sorted_groups(sort, width + 1)).transpose()?;
        Ok(Output::Hashed { table: groups.into_iter(), spilled })
    }

    /// reorder -- the spilled groups' results in the order of their first
    /// rows, each behind that row's position.
    fn reorder(&self, mut groups: SortedGroups, host: &mut ExecHost<'e, '_>) -> Result<Sorted> {
        let mut sort = TupleSort::new(&host.temp_space(), ascending(0..1));
        while let Some((prefix, group)) = groups.next_group(self.spec.aggs, host)? {
            let mut row = vec![prefix[groups.width].clone()];
            row.extend(group.finish(self.spec.aggs)?);
            sort.put(row)?;
        }
        sort.finish()
    }
}

/// Bytes a hash table entry costs beyond its group (bucket and index).
const HASH_ENTRY: usize = 48;

/// Sort keys for columns `columns`, ascending with NULLs last.
fn ascending(columns: impl Iterator<Item = usize>) -> Vec<SortKey> {
    columns.map(|column| SortKey { column, descending: false, nulls_first: false }).collect()
}

fn hash_row(key: &[Datum]) -> u64 {
    key.iter().fold(0u64, |h, d| h.rotate_left(5) ^ hash(d))
}

/// Whether two keys are the same group (NULL equal to NULL).
fn same_key(a: &[Datum], b: &[Datum]) -> bool {
    a.iter().zip(b).all(|(x, y)| cmp(x, y).is_eq())
}

impl<'e> RowSource<'e> for AggregateSource<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Row>> {
        if let Some(input) = self.input.take() {
            self.output = self.start(input, host)?;
        }
        loop {
            match &mut self.output {
                Output::Pending => return Ok(None),
                Output::Ready(rows) => return Ok(rows.next()),
                Output::Sorted(groups) => {
                    return groups
                        .next_group(self.spec.aggs, host)?
                        .map(|g| g.1.finish(self.spec.aggs))
                        .transpose()
                }
                Output::Reordered(rows) => {
                    return Ok(rows.next()?.map(|mut r| r.split_off(1)));
                }
                Output::Hashed { table, spilled } => {
                    if let Some(group) = table.next() {
                        return group.finish(self.spec.aggs).map(Some);
                    }
                    self.output = match spilled.take() {
                        Some(groups) => Output::Reordered(self.reorder(groups, host)?),
                        None => Output::Pending,
                    };
                }
            }
        }
    }
}

/// One group being aggregated.
struct Group {
    /// Its key (hash aggregation only).
    key: Row,
    /// Its first input row.
    first: Row,
    states: Vec<AggState>,
    /// Per aggregate, the values a DISTINCT aggregate has taken.
    seen: Vec<Vec<Datum>>,
    /// Per aggregate with ORDER BY, its values and their sort keys, in
    /// input order, until the group finishes.
    ordered: Vec<Vec<(Datum, Row)>>,
    /// Memory held, for the hash table's limit.
    bytes: usize,
}

impl Group {
    /// A group with no rows yet whose first row is `first`.
    fn new(aggs: &[AggCall], first: Row) -> Result<Group> {
        let states = aggs
            .iter()
            .map(|a| AggState::new(a.kind, a.arg.as_ref().map_or(SqlType::Int8, Expr::ty)))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let bytes = row_size(&first) + states.len() * std::mem::size_of::<AggState>();
        let (seen, ordered) = (vec![Vec::new(); aggs.len()], vec![Vec::new(); aggs.len()]);
        Ok(Group { key: Vec::new(), first, states, seen, ordered, bytes })
    }

    /// The group of an empty input without GROUP BY: a row of NULLs.
    fn empty(aggs: &[AggCall], width: usize) -> Result<Group> {
        Group::new(aggs, vec![Datum::Null; width])
    }

    /// A group started by `row`, advanced over it.
    fn start(aggs: &[AggCall], row: Row, host: &mut ExecHost) -> Result<Group> {
        let mut group = Group::new(aggs, row.clone())?;
        group.advance(aggs, &row, host)?;
        Ok(group)
    }

    /// advance -- adds `row` to every aggregate whose FILTER it passes (a
    /// DISTINCT one only if it has not seen the value; only `array_agg`,
    /// whose transition is not strict, sees NULL).
    fn advance(&mut self, aggs: &[AggCall], row: &[Datum], host: &mut ExecHost) -> Result<()> {
        let per_agg = self.states.iter_mut().zip(&mut self.seen).zip(&mut self.ordered);
        for (agg, ((state, seen), ordered)) in aggs.iter().zip(per_agg) {
            if let Some(filter) = &agg.filter {
                if eval(filter, row, host)? != Datum::Bool(true) {
                    continue;
                }
            }
            let value = match &agg.arg {
                Some(e) => eval(e, row, host)?,
                None => Datum::Bool(true),
            };
            if agg.distinct {
                // The search is linear: let a cancel reach a long one.
                host.check_interrupts()?;
                let skip_null = value.is_null() && agg.kind != AggKind::ArrayAgg;
                if skip_null || seen.iter().any(|s| cmp(s, &value).is_eq()) {
                    continue;
                }
                self.bytes +=
                    std::mem::size_of::<Datum>() + sluice_types::rowcodec::heap_size(&value);
                seen.push(value.clone());
            }
            if agg.order.is_empty() && !agg.distinct {
                state.advance(&value)?;
                continue;
            }
            // DISTINCT values reach the aggregate sorted, as PostgreSQL's
            // sort-based DISTINCT hands them over.
            let keys = match agg.order.is_empty() {
                true => vec![value.clone()],
                false => {
                    agg.order.iter().map(|k| eval(&k.expr, row, host)).collect::<Result<Row>>()?
                }
            };
            self.bytes += row_size(&keys) + sluice_types::rowcodec::heap_size(&value);
            ordered.push((value, keys));
        }
        Ok(())
    }

    /// The output row: the first row and the aggregate results, the
    /// ordered aggregates advanced over their values in key order first.
    fn finish(mut self, aggs: &[AggCall]) -> Result<Row> {
        let per_agg = self.states.iter_mut().zip(std::mem::take(&mut self.ordered));
        for (agg, (state, mut values)) in aggs.iter().zip(per_agg) {
            let order: Vec<SortKey> = match agg.order.is_empty() {
                true => ascending(0..1),
                false => agg
                    .order
                    .iter()
                    .enumerate()
                    .map(|(column, k)| SortKey {
                        column,
                        descending: k.descending,
                        nulls_first: k.nulls_first,
                    })
                    .collect(),
            };
            values.sort_by(|a, b| compare_rows(&a.1, &b.1, &order));
            for (value, _) in &values {
                state.advance(value)?;
            }
        }
        let mut out = self.first;
        for state in &self.states {
            out.push(state.finish()?);
        }
        Ok(out)
    }
}

/// Groups read off a sorted stream of `prefix ++ row` rows whose first
/// `width` columns are the key.
struct SortedGroups {
    rows: Sorted,
    /// The first row of the next group, read ahead.
    ahead: Option<Row>,
    width: usize,
    prefix: usize,
}

impl SortedGroups {
    /// next_group -- the next group's prefix (its first row's) and the
    /// group, aggregated.
    fn next_group(
        &mut self,
        aggs: &[AggCall],
        host: &mut ExecHost,
    ) -> Result<Option<(Row, Group)>> {
        let first = match self.ahead.take() {
            Some(row) => row,
            None => match self.rows.next()? {
                Some(row) => row,
                None => return Ok(None),
            },
        };
        let key_order = ascending(0..self.width);
        let mut group = Group::start(aggs, first[self.prefix..].to_vec(), host)?;
        while let Some(row) = self.rows.next()? {
            if !compare_rows(&first, &row, &key_order).is_eq() {
                self.ahead = Some(row);
                break;
            }
            group.advance(aggs, &row[self.prefix..], host)?;
        }
        let mut prefix = first;
        prefix.truncate(self.prefix);
        Ok(Some((prefix, group)))
    }
}
