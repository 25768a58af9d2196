//! How many rows a condition keeps (PostgreSQL's `utils/adt/selfuncs.c`:
//! eqsel, scalarineqsel, and clauselist_selectivity's pairing of range
//! bounds).
//!
//! The estimates read what ANALYZE stored (`catalog::statistic`): for `=` a
//! value among the most common values has its measured frequency, any other
//! value an equal share of what the MCVs leave; for `<`, `>` the fraction of
//! the histogram below the value, interpolated inside its bucket, plus the
//! MCVs that qualify. Without statistics PostgreSQL's defaults apply: `=`
//! keeps 1/200 (one of the 200 distinct values it assumes) — or one row for a
//! unique column — and a range a third. A value not known at planning time
//! (a parameter) is treated as "some value": `=` keeps 1/ndistinct.

use crate::catalog::statistic::ColumnStatistics;
use sluice_types::compare::cmp_typed;
use sluice_types::ops::CmpOp;
use sluice_types::{Datum, SqlType};

/// PostgreSQL's DEFAULT_EQ_SEL.
pub const DEFAULT_EQ_SEL: f64 = 0.005;
/// PostgreSQL's DEFAULT_INEQ_SEL.
pub const DEFAULT_INEQ_SEL: f64 = 1.0 / 3.0;
/// PostgreSQL's DEFAULT_RANGE_INEQ_SEL (both ends bounded, no statistics).
pub const DEFAULT_RANGE_INEQ_SEL: f64 = 0.005;

/// What the planner knows about one column.
#[derive(Clone, Copy, Debug)]
pub struct ColumnInfo<'a> {
    /// ANALYZE's statistics, if any.
    pub stats: Option<&'a ColumnStatistics>,
    /// The column's type.
    pub ty: SqlType,
    /// Whether a unique index covers exactly this column.
    pub unique: bool,
    /// Rows in the table.
    pub tuples: f64,
}

impl ColumnInfo<'_> {
    /// Distinct non-NULL values (PostgreSQL's get_variable_numdistinct).
    pub(crate) fn n_distinct(&self) -> Option<f64> {
        if self.unique {
            return Some(self.tuples.max(1.0));
        }
        let n = f64::from(self.stats?.n_distinct);
        Some(if n < 0.0 { (-n * self.tuples).max(1.0) } else { n.max(1.0) })
    }

    pub(crate) fn null_frac(&self) -> f64 {
        self.stats.map_or(0.0, |s| f64::from(s.null_frac))
    }
}

/// eq_selectivity -- the fraction of rows where the column equals `value`
/// (`None`: a value unknown until execution).
pub fn eq_selectivity(col: &ColumnInfo, value: Option<&Datum>) -> f64 {
    let Some(n_distinct) = col.n_distinct() else { return DEFAULT_EQ_SEL };
    let mcv = col.stats.and_then(|s| s.mcv.as_ref());
    let (mcv_total, mcv_count) = mcv.map_or((0.0, 0.0), |m| {
        (m.freqs.iter().map(|&f| f64::from(f)).sum(), m.freqs.len() as f64)
    });
    if let (Some(v), Some(m)) = (value, mcv) {
        if let Some(i) = m.values.iter().position(|x| cmp_typed(col.ty, x, v).is_eq()) {
            return f64::from(m.freqs[i]);
        }
    }
    if value.is_none() {
        return ((1.0 - col.null_frac()) / n_distinct).clamp(0.0, 1.0);
    }
    let others = (n_distinct - mcv_count).max(1.0);
    ((1.0 - mcv_total - col.null_frac()) / others).clamp(0.0, 1.0)
}

/// ineq_selectivity -- the fraction of rows where `column op value` holds,
/// for `<`, `<=`, `>`, `>=`.
pub fn ineq_selectivity(col: &ColumnInfo, op: CmpOp, value: Option<&Datum>) -> f64 {
    let (Some(value), Some(stats)) = (value, col.stats) else { return DEFAULT_INEQ_SEL };
    let holds = |x: &Datum| match op {
        CmpOp::Lt => cmp_typed(col.ty, x, value).is_lt(),
        CmpOp::Le => cmp_typed(col.ty, x, value).is_le(),
        CmpOp::Gt => cmp_typed(col.ty, x, value).is_gt(),
        _ => cmp_typed(col.ty, x, value).is_ge(),
    };
    let (mcv_sel, mcv_total) = stats.mcv.as_ref().map_or((0.0, 0.0), |m| {
        let total: f64 = m.freqs.iter().map(|&f| f64::from(f)).sum();
        let sel =
            m.values.iter().zip(&m.freqs).filter(|(v, _)| holds(v)).map(|(_, &f)| f64::from(f));
        (sel.sum(), total)
    });
    let rest = (1.0 - mcv_total - f64::from(stats.null_frac)).max(0.0);
    let hist_sel = match stats.histogram.as_deref() {
        Some(h) if h.len() >= 2 => {
            let fraction_below = histogram_fraction(col.ty, h, value);
            match op {
                CmpOp::Lt | CmpOp::Le => fraction_below,
                _ => 1.0 - fraction_below,
            }
        }
        _ => DEFAULT_INEQ_SEL,
    };
    (mcv_sel + hist_sel * rest).clamp(0.0, 1.0)
}

/// histogram_fraction -- the fraction of the histogram's population below
/// `value`, interpolating inside the bucket it falls in (PostgreSQL's
/// ineq_histogram_selectivity).
fn histogram_fraction(ty: SqlType, hist: &[Datum], value: &Datum) -> f64 {
    let buckets = (hist.len() - 1) as f64;
    if cmp_typed(ty, value, &hist[0]).is_le() {
        return 0.0;
    }
    if cmp_typed(ty, value, &hist[hist.len() - 1]).is_ge() {
        return 1.0;
    }
    let i = hist.partition_point(|x| cmp_typed(ty, x, value).is_le()) - 1;
    let within = match (scalar(&hist[i]), scalar(&hist[i + 1]), scalar(value)) {
        (Some(lo), Some(hi), Some(v)) if hi > lo => ((v - lo) / (hi - lo)).clamp(0.0, 1.0),
        _ => 0.5,
    };
    (i as f64 + within) / buckets
}

/// A value as a number on a line, for interpolation (PostgreSQL's
/// convert_to_scalar, for the types where it is simple).
fn scalar(d: &Datum) -> Option<f64> {
    Some(match d {
        Datum::Int2(v) => f64::from(*v),
        Datum::Int4(v) => f64::from(*v),
        Datum::Int8(v) => *v as f64,
        Datum::Float4(v) => f64::from(*v),
        Datum::Float8(v) => *v,
        Datum::Oid(v) => f64::from(*v),
        _ => return None,
    })
}

/// range_selectivity -- the fraction kept by all of `conds` (comparisons of
/// one column), combining a lower and an upper bound as PostgreSQL's
/// clauselist_selectivity does: `lo + hi - 1`, or DEFAULT_RANGE_INEQ_SEL when
/// both came from defaults.
pub fn range_selectivity(col: &ColumnInfo, conds: &[(CmpOp, Option<Datum>)]) -> f64 {
    let mut sel = 1.0;
    let (mut lower, mut upper): (Option<f64>, Option<f64>) = (None, None);
    for (op, value) in conds {
        match op {
            CmpOp::Eq => sel *= eq_selectivity(col, value.as_ref()),
            CmpOp::Gt | CmpOp::Ge => {
                let s = ineq_selectivity(col, *op, value.as_ref());
                lower = Some(lower.map_or(s, |l| l.min(s)));
            }
            CmpOp::Lt | CmpOp::Le => {
                let s = ineq_selectivity(col, *op, value.as_ref());
                upper = Some(upper.map_or(s, |u| u.min(s)));
            }
            CmpOp::Ne => sel *= 1.0 - eq_selectivity(col, value.as_ref()),
        }
    }
    sel *= match (lower, upper) {
        (Some(lo), Some(hi)) if lo == DEFAULT_INEQ_SEL && hi == DEFAULT_INEQ_SEL => {
            DEFAULT_RANGE_INEQ_SEL
        }
        (Some(lo), Some(hi)) => (lo + hi - 1.0).max(1.0e-10),
        (Some(s), None) | (None, Some(s)) => s,
        (None, None) => 1.0,
    };
    sel.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::statistic::MostCommonValues;

    fn stats() -> ColumnStatistics {
        ColumnStatistics {
            null_frac: 0.0,
            width: 4,
            n_distinct: -1.0,
            mcv: None,
            histogram: Some((0..=100).map(|i| Datum::Int4(i * 100)).collect()),
            correlation: Some(1.0),
        }
    }

    #[test]
    fn unique_columns_keep_one_row_and_unknown_ones_the_defaults() {
        let s = stats();
        let col =
            ColumnInfo { stats: Some(&s), ty: SqlType::Int4, unique: false, tuples: 10_000.0 };
        assert!((eq_selectivity(&col, Some(&Datum::Int4(5))) - 1e-4).abs() < 1e-9);
        let none = ColumnInfo { stats: None, ..col };
        assert_eq!(eq_selectivity(&none, Some(&Datum::Int4(5))), DEFAULT_EQ_SEL);
        assert_eq!(ineq_selectivity(&none, CmpOp::Lt, Some(&Datum::Int4(5))), DEFAULT_INEQ_SEL);
        let both = [(CmpOp::Gt, Some(Datum::Int4(1))), (CmpOp::Lt, Some(Datum::Int4(9)))];
        assert_eq!(range_selectivity(&none, &both), DEFAULT_RANGE_INEQ_SEL);
    }

    #[test]
    fn histograms_interpolate_ranges() {
        let s = stats();
        let col = ColumnInfo { stats: Some(&s), ty: SqlType::Int4, unique: true, tuples: 10_000.0 };
        let lt = ineq_selectivity(&col, CmpOp::Lt, Some(&Datum::Int4(2500)));
        assert!((lt - 0.25).abs() < 1e-9);
        let range = [(CmpOp::Ge, Some(Datum::Int4(1000))), (CmpOp::Le, Some(Datum::Int4(2000)))];
        assert!((range_selectivity(&col, &range) - 0.1).abs() < 1e-9);
    }

    #[test]
    fn common_values_have_their_measured_frequency() {
        let mut s = stats();
        s.n_distinct = 10.0;
        s.mcv = Some(MostCommonValues { values: vec![Datum::Int4(7)], freqs: vec![0.5] });
        let col = ColumnInfo { stats: Some(&s), ty: SqlType::Int4, unique: false, tuples: 1000.0 };
        assert_eq!(eq_selectivity(&col, Some(&Datum::Int4(7))), 0.5);
        assert!((eq_selectivity(&col, Some(&Datum::Int4(8))) - 0.5 / 9.0).abs() < 1e-6);
    }
}
