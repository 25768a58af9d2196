//! Per-column statistics from a sample (PostgreSQL's `compute_scalar_stats`,
//! `compute_distinct_stats` and `analyze_mcv_list` in `commands/analyze.c`).
//!
//! Input: one column's values in the sample rows, in the rows' physical
//! order, NULLs included; the estimated number of live rows in the table; and
//! the statistics target (`default_statistics_target`), which bounds both the
//! most-common-values list and the number of histogram buckets. Output: a
//! [`ColumnStatistics`], or nothing when the sample has no rows.
//!
//! # What is computed, and how
//!
//! * **null_frac**: NULLs / sample rows.
//! * **avg_width**: for fixed-width types the type's length; for varlenas the
//!   mean stored size, header included, as PostgreSQL measures it (sluice
//!   never compresses, so a value PostgreSQL would compress counts at full
//!   size here).
//! * **n_distinct**: if no value repeats, the column is taken to be unique
//!   (−(1 − null_frac)). If every value repeats, the sample is assumed to have
//!   seen all of them (the count). Otherwise the Haas–Stokes "Duj1" estimator
//!   n·d / (n − f1 + f1·n/N), with n sampled and N total non-NULL rows, d
//!   distinct values sampled and f1 of them seen exactly once. An estimate
//!   above 10% of the rows is stored as a negative fraction of the rows, so it
//!   scales as the table grows.
//! * **most common values**: values seen more than once, most frequent first
//!   (ties: the smaller value first). All of them, if they are every distinct
//!   value and fit the target; otherwise the least common are dropped while
//!   they are not significantly more common than an average non-MCV value
//!   (a Wald confidence interval on the hypergeometric distribution) — except
//!   when the sample is the whole table, when the list is kept.
//! * **histogram**: up to target + 1 bounds, evenly spaced through the sorted
//!   values that are not in the MCV list, if at least two distinct remain.
//! * **correlation**: Pearson's correlation between each value's rank in the
//!   sorted order and its row's position in the sample — 1 for a column that
//!   grows with the physical order, −1 for one that shrinks.
//!
//! Values wider than 1024 stored bytes take no part in the last three (they
//! would bloat the catalog row); they count as distinct values.
//!
//! Types with an ordering (every type sluice has: each has a default B-tree
//! operator class in PostgreSQL) sort the sample and read everything off the
//! sorted run ([`Comparison::Ordered`]). A type with equality but no ordering
//! gets only the MCV list, by pairwise comparison against a bounded list of
//! tracked values ([`Comparison::EqualityOnly`]), as PostgreSQL does; that
//! path is ready for such types and exercised by the unit tests.
//!
//! The arithmetic follows PostgreSQL's step by step, including where it
//! rounds to `real`, so a sample of the whole table gives PostgreSQL's
//! numbers exactly. Everything here is pure.

use sluice_sql::catalog::statistic::{ColumnStatistics, MostCommonValues};
use sluice_types::compare::cmp_typed;
use sluice_types::storage::to_storage;
use sluice_types::{Datum, SqlType};
use std::cmp::Ordering;

/// Values whose stored size exceeds this many bytes are left out of the MCV
/// list, the histogram and the correlation (PostgreSQL's WIDTH_THRESHOLD).
pub const WIDTH_THRESHOLD: usize = 1024;

/// Largest varlena size, header included, that gets a 1-byte header.
const SHORT_VARLENA_MAX: usize = 127;

/// How a type's values can be compared, which decides the algorithm
/// (PostgreSQL's std_typanalyze).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// `=` and `<`: sort the sample.
    Ordered,
    /// `=` only: track values by pairwise comparison. No type sluice has
    /// needs it yet (see [`comparison_of`]); the unit tests run it.
    #[allow(dead_code)]
    EqualityOnly,
}

/// comparison_of -- how ANALYZE compares values of `ty`: every type sluice
/// has so far is ordered.
pub fn comparison_of(_ty: SqlType) -> Comparison {
    Comparison::Ordered
}

/// One column of the sample.
#[derive(Debug)]
pub struct ColumnSample<'a> {
    /// The column's type.
    pub ty: SqlType,
    /// Its value in each sample row, in physical order (`Null` for NULL).
    pub values: &'a [Datum],
    /// Estimated live rows in the whole table.
    pub total_rows: f64,
    /// The statistics target: most MCVs, and histogram buckets.
    pub target: usize,
}

/// compute -- the statistics of one column, or `None` for an empty sample.
pub fn compute(sample: &ColumnSample) -> Option<ColumnStatistics> {
    match comparison_of(sample.ty) {
        Comparison::Ordered => scalar_stats(sample),
        Comparison::EqualityOnly => distinct_stats(sample),
    }
}

/// varlena_width -- the bytes a value of a varlena type occupies in a heap
/// tuple, length word included (`VARSIZE_ANY`); `None` for fixed-width types.
fn varlena_width(ty: SqlType, value: &Datum) -> Option<usize> {
    if ty.typlen() != -1 {
        return None;
    }
    let payload = match value {
        Datum::Text(s) => s.len(),
        Datum::Bytea(b) => b.len(),
        other => to_storage(ty, other).len(),
    };
    Some(payload + if payload < SHORT_VARLENA_MAX { 1 } else { 4 })
}

/// The first pass over a column: NULLs, widths, and the values to analyse.
struct Pass<'a> {
    nulls: usize,
    non_null: usize,
    too_wide: usize,
    total_width: f64,
    /// Non-NULL values not too wide, in sample order.
    kept: Vec<&'a Datum>,
}

fn first_pass<'a>(sample: &ColumnSample<'a>) -> Pass<'a> {
    let mut pass = Pass { nulls: 0, non_null: 0, too_wide: 0, total_width: 0.0, kept: Vec::new() };
    for value in sample.values {
        if value.is_null() {
            pass.nulls += 1;
            continue;
        }
        pass.non_null += 1;
        if let Some(width) = varlena_width(sample.ty, value) {
            pass.total_width += width as f64;
            if width > WIDTH_THRESHOLD {
                pass.too_wide += 1;
                continue;
            }
        }
        pass.kept.push(value);
    }
    pass
}

/// The statistics every column gets: NULL fraction and average width.
fn base_stats(sample: &ColumnSample, pass: &Pass) -> ColumnStatistics {
    let null_frac = (pass.nulls as f64 / sample.values.len() as f64) as f32;
    let width = match sample.ty.typlen() {
        len if len > 0 => i32::from(len),
        // PostgreSQL stores the double mean in an int4 field: truncation.
        _ if pass.non_null > 0 => (pass.total_width / pass.non_null as f64) as i32,
        _ => 0,
    };
    ColumnStatistics {
        null_frac,
        width,
        n_distinct: 0.0,
        mcv: None,
        histogram: None,
        correlation: None,
    }
}

/// Statistics of a column that has no analysable value: all NULL (NULL
/// fraction 1, distinct count unknown) or all too wide (taken as unique).
fn degenerate_stats(sample: &ColumnSample, pass: &Pass) -> Option<ColumnStatistics> {
    let mut stats = base_stats(sample, pass);
    if pass.non_null > 0 {
        stats.n_distinct = -(1.0 - f64::from(stats.null_frac)) as f32;
    } else if pass.nulls > 0 {
        stats.null_frac = 1.0;
        stats.n_distinct = 0.0;
    } else {
        return None;
    }
    Some(stats)
}

/// haas_stokes -- the Duj1 estimate of distinct values: `n` sampled of `big_n`
/// non-NULL rows, `d` distinct values sampled, `f1` of them seen once;
/// clamped to [d, N] and rounded.
pub fn haas_stokes(n: f64, big_n: f64, d: f64, f1: f64) -> f64 {
    let estimate = if big_n > 0.0 { (n * d) / ((n - f1) + f1 * n / big_n) } else { 0.0 };
    let clamped = if estimate < d { d } else { estimate };
    let clamped = if clamped > big_n { big_n } else { clamped };
    (clamped + 0.5).floor()
}

/// What the sample says about distinct values, for [`n_distinct`].
struct DistinctCounts {
    /// Distinct values sampled that were seen more than once.
    repeated: usize,
    /// Whether every distinct value sampled is known and was seen more than
    /// once (so the sample likely saw them all).
    all_repeated: bool,
    /// Distinct values sampled (counting too-wide values as distinct).
    d: usize,
    /// Distinct values seen exactly once.
    f1: usize,
}

/// n_distinct -- `stadistinct` from the counts (see the module doc), as
/// PostgreSQL rounds it: a `real`, scaled to a fraction of the rows when
/// above 10% of them.
fn n_distinct(
    counts: &DistinctCounts,
    null_frac: f32,
    pass: &Pass,
    sample_rows: usize,
    total_rows: f64,
) -> f32 {
    let null_frac = f64::from(null_frac);
    let mut stadistinct = if counts.repeated == 0 {
        -(1.0 - null_frac) as f32
    } else if counts.all_repeated {
        counts.d as f32
    } else {
        let n = (sample_rows - pass.nulls) as f64;
        let big_n = total_rows * (1.0 - null_frac);
        haas_stokes(n, big_n, counts.d as f64, counts.f1 as f64) as f32
    };
    if f64::from(stadistinct) > 0.1 * total_rows {
        stadistinct = (-(f64::from(stadistinct) / total_rows)) as f32;
    }
    stadistinct
}

/// analyze_mcv_list -- how many of the candidate MCVs (`counts`, most
/// common first) to keep: the least common are dropped while not
/// significantly more common than the average value outside the list.
pub fn analyze_mcv_list(
    counts: &[usize],
    stadistinct: f32,
    null_frac: f32,
    sample_rows: usize,
    total_rows: f64,
) -> usize {
    let mut num_mcv = counts.len();
    // The whole table was sampled: every candidate is exact.
    if sample_rows as f64 == total_rows || total_rows <= 1.0 {
        return num_mcv;
    }
    let mut ndistinct_table = f64::from(stadistinct);
    if ndistinct_table < 0.0 {
        ndistinct_table = -ndistinct_table * total_rows;
    }
    let samplerows = sample_rows as f64;
    // Count of all candidates but the least common one under scrutiny.
    let mut sumcount: f64 = counts[..num_mcv.saturating_sub(1)].iter().map(|c| *c as f64).sum();
    while num_mcv > 0 {
        // The selectivity the least common value would get outside the list.
        let mut selec = (1.0 - sumcount / samplerows - f64::from(null_frac)).clamp(0.0, 1.0);
        let otherdistinct = ndistinct_table - (num_mcv - 1) as f64;
        if otherdistinct > 1.0 {
            selec /= otherdistinct;
        }
        // Hypergeometric standard deviation of its sample count.
        let (big_n, n) = (total_rows, samplerows);
        let count = counts[num_mcv - 1] as f64;
        let k = big_n * count / n;
        let variance = n * k * (big_n - k) * (big_n - n) / (big_n * big_n * (big_n - 1.0));
        if count > selec * samplerows + 2.0 * variance.sqrt() + 0.5 {
            break;
        }
        num_mcv -= 1;
        if num_mcv == 0 {
            break;
        }
        sumcount -= counts[num_mcv - 1] as f64;
    }
    num_mcv
}

/// A run of equal values in the sorted sample: where it starts, how long.
#[derive(Clone, Copy, Debug)]
struct Run {
    first: usize,
    count: usize,
}

/// scalar_stats -- statistics of an ordered type, from the sorted sample
/// (PostgreSQL's compute_scalar_stats).
fn scalar_stats(sample: &ColumnSample) -> Option<ColumnStatistics> {
    let pass = first_pass(sample);
    if pass.kept.is_empty() {
        return degenerate_stats(sample, &pass);
    }
    let ty = sample.ty;
    // (value, position among the kept values): ties keep physical order.
    let mut items: Vec<(&Datum, usize)> = pass.kept.iter().copied().zip(0..).collect();
    items.sort_unstable_by(|a, b| cmp_typed(ty, a.0, b.0).then(a.1.cmp(&b.1)));
    let runs = equal_runs(ty, &items);
    let mut stats = base_stats(sample, &pass);
    let repeated: Vec<Run> = runs.iter().copied().filter(|r| r.count > 1).collect();
    // The MCV candidates: most frequent first, ties in value order (stable).
    let mut track = repeated.clone();
    track.sort_by_key(|r| std::cmp::Reverse(r.count));
    track.truncate(sample.target);
    let counts = DistinctCounts {
        repeated: repeated.len(),
        all_repeated: pass.too_wide == 0 && repeated.len() == runs.len(),
        d: runs.len() + pass.too_wide,
        f1: runs.len() - repeated.len() + pass.too_wide,
    };
    let sample_rows = sample.values.len();
    stats.n_distinct = n_distinct(&counts, stats.null_frac, &pass, sample_rows, sample.total_rows);
    let complete = track.len() == runs.len()
        && pass.too_wide == 0
        && stats.n_distinct > 0.0
        && track.len() <= sample.target;
    let num_mcv = if complete {
        track.len()
    } else {
        let counts: Vec<usize> = track.iter().map(|r| r.count).collect();
        analyze_mcv_list(&counts, stats.n_distinct, stats.null_frac, sample_rows, sample.total_rows)
    };
    let mcv = &track[..num_mcv];
    if !mcv.is_empty() {
        stats.mcv = Some(MostCommonValues {
            values: mcv.iter().map(|r| items[r.first].0.clone()).collect(),
            freqs: mcv.iter().map(|r| (r.count as f64 / sample_rows as f64) as f32).collect(),
        });
    }
    stats.histogram = histogram(&items, mcv, runs.len(), sample.target);
    stats.correlation = correlation(&items);
    Some(stats)
}

/// The runs of equal values in sorted `items`.
fn equal_runs(ty: SqlType, items: &[(&Datum, usize)]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (i, (value, _)) in items.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if cmp_typed(ty, items[run.first].0, value) == Ordering::Equal => {
                run.count += 1
            }
            _ => runs.push(Run { first: i, count: 1 }),
        }
    }
    runs
}

/// histogram -- evenly spaced bounds through the sorted values outside the
/// MCV list: `target` + 1 of them at most, none unless at least two
/// distinct values remain.
fn histogram(
    items: &[(&Datum, usize)],
    mcv: &[Run],
    ndistinct: usize,
    target: usize,
) -> Option<Vec<Datum>> {
    let num_hist = (ndistinct - mcv.len()).min(target + 1);
    if num_hist < 2 {
        return None;
    }
    let mut in_mcv = vec![false; items.len()];
    for run in mcv {
        in_mcv[run.first..run.first + run.count].iter_mut().for_each(|m| *m = true);
    }
    let rest: Vec<&Datum> =
        items.iter().zip(&in_mcv).filter(|(_, m)| !**m).map(|(item, _)| item.0).collect();
    let last = (rest.len() - 1) as u64;
    let steps = (num_hist - 1) as u64;
    Some((0..num_hist as u64).map(|i| rest[(i * last / steps) as usize].clone()).collect())
}

/// correlation -- Pearson's r between sorted rank and sample position. Both
/// are permutations of 0..n, so their sums and sums of squares are known in
/// closed form and only Σ rank·position needs the data.
fn correlation(items: &[(&Datum, usize)]) -> Option<f32> {
    if items.len() < 2 {
        return None;
    }
    let xysum: f64 = items.iter().enumerate().map(|(i, (_, pos))| (i as f64) * (*pos as f64)).sum();
    let n = items.len() as f64;
    let xsum = (n - 1.0) * n / 2.0;
    let x2sum = (n - 1.0) * n * ((2 * items.len() - 1) as f64) / 6.0;
    Some(((n * xysum - xsum * xsum) / (n * x2sum - xsum * xsum)) as f32)
}

/// A value tracked by [`distinct_stats`] and how often it was seen.
struct Tracked<'a> {
    value: &'a Datum,
    count: usize,
}

/// track_values -- PostgreSQL's bounded tracking of frequent values without
/// an ordering: the list stays sorted by count; a value seen again moves up
/// past less frequent ones; a new value goes in front of the values seen only
/// once (so the oldest singletons fall off the end when the list is full).
fn track_values<'a>(ty: SqlType, kept: &[&'a Datum], track_max: usize) -> Vec<Tracked<'a>> {
    let mut track: Vec<Tracked> = Vec::with_capacity(track_max + 1);
    for value in kept {
        let mut first_single = track.len();
        let mut found = None;
        for (j, t) in track.iter().enumerate() {
            if cmp_typed(ty, value, t.value) == Ordering::Equal {
                found = Some(j);
                break;
            }
            if j < first_single && t.count == 1 {
                first_single = j;
            }
        }
        match found {
            Some(mut j) => {
                track[j].count += 1;
                while j > 0 && track[j].count > track[j - 1].count {
                    track.swap(j, j - 1);
                    j -= 1;
                }
            }
            None if first_single < track_max => {
                track.insert(first_single, Tracked { value, count: 1 });
                track.truncate(track_max);
            }
            None => {}
        }
    }
    track
}

/// distinct_stats -- statistics of a type with equality only: NULL
/// fraction, width, distinct count and MCVs, no histogram or correlation
/// (PostgreSQL's compute_distinct_stats).
fn distinct_stats(sample: &ColumnSample) -> Option<ColumnStatistics> {
    let pass = first_pass(sample);
    if pass.non_null == 0 {
        return degenerate_stats(sample, &pass);
    }
    let track_max = (2 * sample.target).max(10);
    let track = track_values(sample.ty, &pass.kept, track_max);
    let mut stats = base_stats(sample, &pass);
    let repeated = track.iter().take_while(|t| t.count > 1).count();
    let sum_repeated: usize = track[..repeated].iter().map(|t| t.count).sum();
    // Values not in the final list are assumed to have been seen once.
    let f1 = pass.non_null - sum_repeated;
    let counts = DistinctCounts {
        repeated,
        all_repeated: track.len() < track_max && pass.too_wide == 0 && repeated == track.len(),
        d: f1 + repeated,
        f1,
    };
    let sample_rows = sample.values.len();
    stats.n_distinct = n_distinct(&counts, stats.null_frac, &pass, sample_rows, sample.total_rows);
    let complete = track.len() < track_max
        && pass.too_wide == 0
        && stats.n_distinct > 0.0
        && track.len() <= sample.target;
    let num_mcv = if complete {
        track.len()
    } else {
        let limit = sample.target.min(track.len());
        let counts: Vec<usize> = track[..limit].iter().map(|t| t.count).collect();
        analyze_mcv_list(&counts, stats.n_distinct, stats.null_frac, sample_rows, sample.total_rows)
    };
    if num_mcv > 0 {
        let mcv = &track[..num_mcv];
        stats.mcv = Some(MostCommonValues {
            values: mcv.iter().map(|t| t.value.clone()).collect(),
            freqs: mcv.iter().map(|t| (t.count as f64 / sample_rows as f64) as f32).collect(),
        });
    }
    Some(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(values: &[Option<i32>]) -> Vec<Datum> {
        values.iter().map(|v| v.map_or(Datum::Null, Datum::Int4)).collect()
    }

    fn run(ty: SqlType, values: &[Datum], total_rows: f64, target: usize) -> ColumnStatistics {
        compute(&ColumnSample { ty, values, total_rows, target }).expect("statistics")
    }

    fn int_list(values: &[Datum]) -> Vec<i32> {
        values
            .iter()
            .map(|d| match d {
                Datum::Int4(v) => *v,
                other => panic!("not int4: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn empty_sample_has_no_statistics() {
        let sample = ColumnSample { ty: SqlType::Int4, values: &[], total_rows: 0.0, target: 100 };
        assert_eq!(compute(&sample), None);
    }

    #[test]
    fn unique_column_gets_minus_one_a_full_histogram_and_correlation() {
        let values: Vec<Datum> = (1..=1000).map(Datum::Int4).collect();
        let s = run(SqlType::Int4, &values, 1000.0, 100);
        assert_eq!(s.null_frac, 0.0);
        assert_eq!(s.width, 4);
        assert_eq!(s.n_distinct, -1.0);
        assert_eq!(s.mcv, None);
        let bounds = int_list(&s.histogram.unwrap());
        assert_eq!(bounds.len(), 101);
        // Bounds i·999/100 through the sorted values 1..=1000 (as PostgreSQL).
        assert_eq!(&bounds[..4], &[1, 10, 20, 30]);
        assert_eq!(bounds[100], 1000);
        assert_eq!(s.correlation, Some(1.0));
    }

    #[test]
    fn reversed_column_correlates_negatively_and_nulls_count() {
        let mut values: Vec<Datum> = (1..=100).rev().map(Datum::Int4).collect();
        values.extend(std::iter::repeat_n(Datum::Null, 25));
        let s = run(SqlType::Int4, &values, 125.0, 100);
        assert_eq!(s.null_frac, 0.2);
        assert_eq!(s.n_distinct, -0.8);
        assert_eq!(s.correlation, Some(-1.0));
    }

    #[test]
    fn few_repeated_values_are_a_complete_mcv_list() {
        // 0 ×50, 1 ×30, 2 ×20: every value repeats, so n_distinct is the count.
        let values: Vec<Datum> =
            (0..100).map(|i| Datum::Int4((i >= 50) as i32 + (i >= 80) as i32)).collect();
        let s = run(SqlType::Int4, &values, 100.0, 100);
        assert_eq!(s.n_distinct, 3.0);
        let mcv = s.mcv.unwrap();
        assert_eq!(int_list(&mcv.values), vec![0, 1, 2]);
        assert_eq!(mcv.freqs, vec![0.5, 0.3, 0.2]);
        assert_eq!(s.histogram, None);
    }

    #[test]
    fn mcv_ties_are_ordered_by_value_and_truncated_at_the_target() {
        // Values 1..=5 twice each, then 6 three times; target 3.
        let mut raw: Vec<i32> = (1..=5).flat_map(|v| [v, v]).collect();
        raw.extend([6, 6, 6]);
        raw.extend(100..200);
        let values: Vec<Datum> = raw.into_iter().map(Datum::Int4).collect();
        let total = values.len() as f64;
        let s = run(SqlType::Int4, &values, total, 3);
        assert_eq!(int_list(&s.mcv.unwrap().values), vec![6, 1, 2]);
        // Histogram: up to target + 1 bounds over the non-MCV values.
        let bounds = int_list(&s.histogram.unwrap());
        assert_eq!(bounds.len(), 4);
        assert_eq!(bounds[0], 3);
        assert_eq!(bounds[3], 199);
    }

    #[test]
    fn haas_stokes_matches_hand_computation() {
        // n = 300 of N = 30000, d = 200 with f1 = 150:
        // 300·200 / (150 + 150·300/30000) = 60000 / 151.5 = 396.04 → 396.
        assert_eq!(haas_stokes(300.0, 30000.0, 200.0, 150.0), 396.0);
        // Whole table sampled: the estimate is d itself.
        assert_eq!(haas_stokes(1000.0, 1000.0, 123.0, 50.0), 123.0);
        // Clamped into [d, N].
        assert_eq!(haas_stokes(10.0, 12.0, 10.0, 10.0), 12.0);
        assert_eq!(haas_stokes(10.0, 0.0, 3.0, 1.0), 0.0);
    }

    #[test]
    fn distinct_estimate_scales_with_rows_above_ten_percent() {
        // 3000-row sample of 30000 rows: 1000 values ×2, 1000 values ×1.
        let mut raw: Vec<i32> = (0..1000).flat_map(|v| [v, v]).collect();
        raw.extend(5000..6000);
        let values: Vec<Datum> = raw.into_iter().map(Datum::Int4).collect();
        let s = run(SqlType::Int4, &values, 30000.0, 100);
        // Duj1: 3000·2000 / (2000 + 1000·3000/30000) = 2857.1 → 2857, below
        // 10% of 30000 rows, so it stays a count.
        assert_eq!(s.n_distinct, 2857.0);
        let big = run(SqlType::Int4, &values, 20000.0, 100);
        // 3000·2000 / (2000 + 1000·3000/20000) = 2790.7 → 2791 > 2000: a fraction.
        assert_eq!(big.n_distinct, (-(2791.0f64 / 20000.0)) as f32);
    }

    #[test]
    fn mcv_cutoff_keeps_only_significantly_common_values() {
        // Sample 1000 of 100000 rows, about 10000 distinct values in the
        // table, so an average other value is expected 0.08 times in the
        // sample. The cut-off is that plus two standard deviations plus 0.5:
        // 3.4 for a count of 2, 4.0 for 3, 6.5 for 9 — so 9 stays, 3 and 2 go.
        let counts = [100, 50, 9, 3, 2];
        let keep = analyze_mcv_list(&counts, 10000.0, 0.0, 1000, 100000.0);
        assert_eq!(keep, 3);
        // A count of 5 would not clear its cut-off of 5.02 either.
        assert_eq!(analyze_mcv_list(&[100, 50, 5, 3, 2], 10000.0, 0.0, 1000, 100000.0), 2);
        // Whole table sampled: everything stays.
        assert_eq!(analyze_mcv_list(&counts, 10000.0, 0.0, 1000, 1000.0), 5);
        // Values all about equally common: nothing stands out.
        assert_eq!(analyze_mcv_list(&[3, 3, 2, 2], -0.5, 0.0, 1000, 100000.0), 0);
    }

    #[test]
    fn text_widths_count_the_varlena_header() {
        let long = "x".repeat(200);
        let values = vec![Datum::Text("ab".into()), Datum::Text(long), Datum::Null];
        let s = run(SqlType::Text, &values, 3.0, 100);
        // (3 + 204) / 2 = 103.5 → 103.
        assert_eq!(s.width, 103);
        assert_eq!(s.null_frac, (1.0f64 / 3.0) as f32);
    }

    #[test]
    fn too_wide_values_are_distinct_and_out_of_the_lists() {
        let wide = Datum::Text("w".repeat(2000));
        let values = vec![wide.clone(), wide, Datum::Text("a".into()), Datum::Text("a".into())];
        let s = run(SqlType::Text, &values, 4.0, 100);
        let mcv = s.mcv.unwrap();
        assert_eq!(mcv.values, vec![Datum::Text("a".into())]);
        assert_eq!(s.histogram, None);
        // d = 1 + 2 too wide = 3, f1 = 2: whole table so Duj1 = d = 3 (> 0.4 → −0.75).
        assert_eq!(s.n_distinct, -0.75);
        let all_wide = vec![Datum::Text("w".repeat(2000)), Datum::Null];
        let s = run(SqlType::Text, &all_wide, 2.0, 100);
        assert_eq!((s.n_distinct, s.null_frac), (-0.5, 0.5));
    }

    #[test]
    fn all_null_column() {
        let values = ints(&[None, None, None]);
        let s = run(SqlType::Int4, &values, 3.0, 100);
        assert_eq!((s.null_frac, s.width, s.n_distinct), (1.0, 4, 0.0));
        let s = run(SqlType::Text, &values, 3.0, 100);
        assert_eq!(s.width, 0);
        assert_eq!(s.mcv, None);
    }

    #[test]
    fn bpchar_values_compare_without_trailing_blanks() {
        let values = vec![Datum::Text("a  ".into()), Datum::Text("a".into())];
        let s = run(SqlType::Bpchar, &values, 100.0, 100);
        assert_eq!(s.n_distinct, 1.0);
        assert_eq!(s.mcv.unwrap().values.len(), 1);
    }

    #[test]
    fn equality_only_path_tracks_values_like_postgres() {
        // Through distinct_stats directly: 0 ×4, 1 ×3, 2 ×2, then singletons.
        let raw = [0, 1, 2, 0, 1, 0, 9, 2, 1, 0, 8, 7];
        let values: Vec<Datum> = raw.iter().map(|v| Datum::Int4(*v)).collect();
        let sample =
            ColumnSample { ty: SqlType::Int4, values: &values, total_rows: 12.0, target: 100 };
        let s = distinct_stats(&sample).unwrap();
        let mcv = s.mcv.unwrap();
        // Whole table, so the estimate is d = 6, above 10% of 12 rows: −0.5.
        // Not positive, so the list is not "complete"; analyze_mcv_list keeps
        // every candidate anyway, since the whole table was sampled.
        assert_eq!(s.n_distinct, -0.5);
        assert_eq!(int_list(&mcv.values), vec![0, 1, 2, 7, 8, 9]);
        assert_eq!(s.histogram, None);
        assert_eq!(s.correlation, None);
    }

    #[test]
    fn tracking_list_drops_the_oldest_singletons_when_full() {
        let values: Vec<Datum> = (0..15).map(Datum::Int4).chain([Datum::Int4(14)]).collect();
        let refs: Vec<&Datum> = values.iter().collect();
        let track = track_values(SqlType::Int4, &refs, 10);
        assert_eq!(track.len(), 10);
        // The repeated 14 leads; then the newest singletons 13, 12, ...
        assert_eq!((track[0].value, track[0].count), (&Datum::Int4(14), 2));
        assert_eq!(track[1].value, &Datum::Int4(13));
        assert_eq!(track[9].value, &Datum::Int4(5));
    }

    #[test]
    fn every_type_is_ordered() {
        for ty in sluice_types::types::ALL_TYPES {
            assert_eq!(comparison_of(ty), Comparison::Ordered);
        }
    }
}
