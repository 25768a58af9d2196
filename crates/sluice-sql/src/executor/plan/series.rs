//! Set-returning functions in FROM. generate_series (PostgreSQL's
//! generate_series_int4/int8 and generate_series_step_numeric) is a running
//! node that counts from start to stop by step; unnest (array_unnest)
//! hands out an array's elements. Their arguments are evaluated when the
//! node first runs (they may read a LATERAL outer row).

use super::*;

/// generate_series over integers or numerics.
pub(super) struct Series<'e> {
    args: (&'e Expr, &'e Expr, Option<&'e Expr>),
    ty: SqlType,
    state: Option<(Datum, Datum, Datum)>,
    done: bool,
}

impl<'e> Series<'e> {
    pub(super) fn new(
        start: &'e Expr,
        stop: &'e Expr,
        step: Option<&'e Expr>,
        ty: SqlType,
    ) -> Series<'e> {
        Series { args: (start, stop, step), ty, state: None, done: false }
    }

    /// The integer `n` in the series' type.
    fn constant(&self, n: i32) -> Result<Datum> {
        Ok(sluice_types::cast(
            &Datum::Int4(n),
            SqlType::Int4,
            self.ty,
            -1,
            false,
            &Default::default(),
        )?)
    }

    fn init(&mut self, host: &mut ExecHost) -> Result<()> {
        let start = eval(self.args.0, &[], host)?;
        let stop = eval(self.args.1, &[], host)?;
        let step = match self.args.2 {
            Some(e) => eval(e, &[], host)?,
            None => self.constant(1)?,
        };
        if start.is_null() || stop.is_null() || step.is_null() {
            self.done = true;
        } else {
            check_series_bound(&start, "start value")?;
            check_series_bound(&stop, "stop value")?;
            if self.args.2.is_some() {
                check_series_bound(&step, "step size")?;
            }
            if cmp(&step, &self.constant(0)?) == Ordering::Equal {
                return Err(SqlError::new("22023", "step size cannot equal zero"));
            }
        }
        self.state = Some((start, stop, step));
        Ok(())
    }
}

/// check_series_bound -- 22023 for a NaN or infinite numeric argument of
/// generate_series (PostgreSQL's generate_series_step_numeric): the series
/// would never reach its end, since NaN compares above everything and
/// infinity plus a step is infinity.
fn check_series_bound(value: &Datum, what: &str) -> Result<()> {
    let Datum::Numeric(n) = value else { return Ok(()) };
    let problem = if n.is_nan() {
        "NaN"
    } else if !n.is_finite() {
        "infinity"
    } else {
        return Ok(());
    };
    Err(SqlError::new("22023", format!("{what} cannot be {problem}")))
}

impl<'e> RowSource<'e> for Series<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        // A series can be as long as its bounds allow: nothing below this
        // node reads a page, so the node itself must let a cancel in.
        host.check_interrupts()?;
        if self.state.is_none() && !self.done {
            self.init(host)?;
        }
        let Some((current, stop, step)) = self.state.as_mut().filter(|_| !self.done) else {
            return Ok(None);
        };
        let ascending = matches!(step, Datum::Int4(v) if *v > 0)
            || matches!(step, Datum::Int8(v) if *v > 0)
            || matches!(step, Datum::Numeric(n) if !n.is_negative());
        let past = if ascending {
            cmp(current, stop) == Ordering::Greater
        } else {
            cmp(current, stop) == Ordering::Less
        };
        if past {
            self.done = true;
            return Ok(None);
        }
        let value = current.clone();
        match sluice_types::ops::arith(
            sluice_types::ops::ArithOp::Add,
            current,
            step,
            host_context(host),
        ) {
            Ok(next) => *current = next,
            // Overflow past the type's end: this value was the last.
            Err(_) => self.done = true,
        }
        Ok(Some(vec![value]))
    }
}

/// unnest(array) [WITH ORDINALITY]: the array's elements in order (none for
/// a NULL array), each with its position when asked; with `options`,
/// pg_options_to_table(array): each `name=value` element as a name and a
/// value (NULL without `=`).
pub(super) struct Unnest<'e> {
    array: &'e Expr,
    ordinality: bool,
    options: bool,
    elements: Option<std::vec::IntoIter<Datum>>,
    position: i64,
}

impl<'e> Unnest<'e> {
    pub(super) fn new(array: &'e Expr, ordinality: bool, options: bool) -> Unnest<'e> {
        Unnest { array, ordinality, options, elements: None, position: 0 }
    }
}

/// An option `name=value` as the two columns of pg_options_to_table.
fn split_option(option: Datum) -> Vec<Datum> {
    let text = option.as_str().unwrap_or_default();
    match text.split_once('=') {
        Some((name, value)) => vec![Datum::Text(name.into()), Datum::Text(value.into())],
        None => vec![Datum::Text(text.into()), Datum::Null],
    }
}

impl<'e> RowSource<'e> for Unnest<'e> {
    fn next(&mut self, host: &mut ExecHost<'e, '_>) -> Result<Option<Vec<Datum>>> {
        host.check_interrupts()?;
        if self.elements.is_none() {
            let elements = match eval(self.array, &[], host)? {
                Datum::Array(array) => array.into_elements(),
                _ => Vec::new(),
            };
            self.elements = Some(elements.into_iter());
        }
        let Some(value) = self.elements.as_mut().and_then(Iterator::next) else {
            return Ok(None);
        };
        self.position += 1;
        let mut row = if self.options { split_option(value) } else { vec![value] };
        if self.ordinality {
            row.push(Datum::Int8(self.position));
        }
        Ok(Some(row))
    }
}
