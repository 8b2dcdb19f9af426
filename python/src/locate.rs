//! Locators from Python: `Session.locate(pattern)` (and `locate_row`, `locate_cells`) as a
//! `Locator` that holds what it looks for and where — its scopes, its pick — and is turned
//! into the library's own live locator each time it is asked, so scoping, retrying and
//! the failure's report are the library's, word for word.

use std::ops::Bound;

use pyo3::prelude::*;
use tuipilot::{LiveLocator, Session, StyleMatch};

use crate::arguments::{caller, seconds};
use crate::errors::{bad_input, raise, raise_at};
use crate::screen::PyMatch;
use crate::{PySession, interruptible};

/// What a locator finds on each screen, before its scopes.
#[derive(Clone)]
enum Target {
    Pattern(String),
    Row(u16),
    Cells(u16, u16, u16),
}

/// A scope or pick, in the order the caller added them.
#[derive(Clone)]
enum Step {
    Rect((Bound<u16>, Bound<u16>), (Bound<u16>, Bound<u16>)),
    Below(Box<Recipe>),
    Above(Box<Recipe>),
    RightOf(Box<Recipe>),
    LeftOf(Box<Recipe>),
    Inside(Box<Recipe>),
    Nth(usize),
    Last,
}

/// Everything a Python locator asks for, apart from the session.
#[derive(Clone)]
struct Recipe {
    target: Target,
    steps: Vec<Step>,
}

impl Recipe {
    /// The library's live locator for this recipe on `session`.
    fn build<'s>(&self, session: &'s Session) -> tuipilot::Result<LiveLocator<'s>> {
        let mut live = match &self.target {
            Target::Pattern(pattern) => session.locate(pattern)?,
            Target::Row(row) => session.locate_row(*row),
            Target::Cells(row, start, end) => session.locate_cells(*row, *start..*end),
        };
        for step in &self.steps {
            live = match step {
                Step::Rect(rows, cols) => live.in_rect(*rows, *cols),
                Step::Below(other) => live.below(&other.build(session)?),
                Step::Above(other) => live.above(&other.build(session)?),
                Step::RightOf(other) => live.right_of(&other.build(session)?),
                Step::LeftOf(other) => live.left_of(&other.build(session)?),
                Step::Inside(other) => live.inside(&other.build(session)?),
                Step::Nth(n) => live.nth(*n),
                Step::Last => live.last(),
            };
        }
        Ok(live)
    }
}

/// A part of the live screen — every match of a regex, a row, some cells — limited to a
/// region and picked among, with assertions that retry until the screen bears them out
/// (see the library's `LiveLocator`). Each method that limits returns a new locator.
#[pyclass(frozen, module = "tuipilot._native", name = "Locator")]
pub(crate) struct PyLocator {
    session: Py<PySession>,
    recipe: Recipe,
    /// Seconds to retry for (`None`: the session's timeout).
    timeout: Option<f64>,
}

/// `start..stop` from Python's arguments (`None`: open), refused when it is empty.
fn span(
    py: Python<'_>,
    what: &str,
    start: Option<u16>,
    stop: Option<u16>,
) -> PyResult<(Bound<u16>, Bound<u16>)> {
    if let (Some(a), Some(b)) = (start, stop)
        && a >= b
    {
        return Err(bad_input(
            py,
            format!("{what}({a}, {b}) holds nothing: give start < stop (stop is exclusive, as in range)"),
        ));
    }
    Ok((
        start.map_or(Bound::Unbounded, Bound::Included),
        stop.map_or(Bound::Unbounded, Bound::Excluded),
    ))
}

impl PyLocator {
    pub(crate) fn pattern(session: Py<PySession>, pattern: String) -> PyLocator {
        PyLocator::of(session, Target::Pattern(pattern))
    }

    pub(crate) fn row(session: Py<PySession>, row: u16) -> PyLocator {
        PyLocator::of(session, Target::Row(row))
    }

    pub(crate) fn cells(session: Py<PySession>, row: u16, start: u16, stop: u16) -> PyLocator {
        PyLocator::of(session, Target::Cells(row, start, stop))
    }

    fn of(session: Py<PySession>, target: Target) -> PyLocator {
        PyLocator {
            session,
            recipe: Recipe {
                target,
                steps: Vec::new(),
            },
            timeout: None,
        }
    }

    fn with(&self, py: Python<'_>, step: Step) -> PyLocator {
        let mut recipe = self.recipe.clone();
        recipe.steps.push(step);
        PyLocator {
            session: self.session.clone_ref(py),
            recipe,
            timeout: self.timeout,
        }
    }

    /// `other`'s recipe, refused when it locates on another session.
    fn anchor(&self, py: Python<'_>, other: &PyLocator) -> PyResult<Box<Recipe>> {
        if !self.session.is(&other.session) {
            return Err(bad_input(
                py,
                "the other locator is on another session: locate both on the same one".into(),
            ));
        }
        Ok(Box::new(other.recipe.clone()))
    }

    /// Runs `assert` on the live locator with the interpreter's lock released; Ctrl-C
    /// cancels the retry and raises `KeyboardInterrupt`. A failure is raised at the
    /// Python caller's line.
    fn assert(
        &self,
        py: Python<'_>,
        assert: impl FnOnce(&LiveLocator<'_>) -> tuipilot::Result<tuipilot::Snapshot> + Send,
    ) -> PyResult<String> {
        let session = &self.session.get().inner;
        let source = caller(py);
        let mut live = self.recipe.build(session).map_err(|e| raise(py, e))?;
        if let Some(timeout) = self.timeout {
            live = live.within(seconds(py, "within", timeout)?);
        }
        let cancel = session.canceller();
        let live = live.cancellable(&cancel);
        interruptible(py, &cancel, || assert(&live).map(|screen| screen.text()))?
            .map_err(|e| raise_at(py, e, source.as_deref()))
    }
}

#[pymethods]
impl PyLocator {
    /// Only the matches in rows `start` to `stop` (0-based, `stop` exclusive as in
    /// `range`; either may be `None` for open), on every screen it retries on.
    #[pyo3(signature = (start=None, stop=None))]
    fn in_rows(&self, py: Python<'_>, start: Option<u16>, stop: Option<u16>) -> PyResult<PyLocator> {
        let rows = span(py, "in_rows", start, stop)?;
        Ok(self.with(py, Step::Rect(rows, (Bound::Unbounded, Bound::Unbounded))))
    }

    /// Only the matches in columns `start` to `stop` (0-based, `stop` exclusive).
    #[pyo3(signature = (start=None, stop=None))]
    fn in_cols(&self, py: Python<'_>, start: Option<u16>, stop: Option<u16>) -> PyResult<PyLocator> {
        let cols = span(py, "in_cols", start, stop)?;
        Ok(self.with(py, Step::Rect((Bound::Unbounded, Bound::Unbounded), cols)))
    }

    /// Only the matches inside the rectangle of `rows` and `cols`, each a `(start, stop)`
    /// pair (0-based, `stop` exclusive; `None` for open).
    #[pyo3(signature = (rows=(None, None), cols=(None, None)))]
    fn in_rect(
        &self,
        py: Python<'_>,
        rows: (Option<u16>, Option<u16>),
        cols: (Option<u16>, Option<u16>),
    ) -> PyResult<PyLocator> {
        let rows = span(py, "in_rect rows", rows.0, rows.1)?;
        let cols = span(py, "in_rect cols", cols.0, cols.1)?;
        Ok(self.with(py, Step::Rect(rows, cols)))
    }

    /// Only the matches in the rows under `other`'s first match, found again on each
    /// screen.
    fn below(&self, py: Python<'_>, other: &PyLocator) -> PyResult<PyLocator> {
        Ok(self.with(py, Step::Below(self.anchor(py, other)?)))
    }

    /// Only the matches in the rows over `other`'s first match.
    fn above(&self, py: Python<'_>, other: &PyLocator) -> PyResult<PyLocator> {
        Ok(self.with(py, Step::Above(self.anchor(py, other)?)))
    }

    /// Only the matches on `other`'s row, after it.
    fn right_of(&self, py: Python<'_>, other: &PyLocator) -> PyResult<PyLocator> {
        Ok(self.with(py, Step::RightOf(self.anchor(py, other)?)))
    }

    /// Only the matches on `other`'s row, before it.
    fn left_of(&self, py: Python<'_>, other: &PyLocator) -> PyResult<PyLocator> {
        Ok(self.with(py, Step::LeftOf(self.anchor(py, other)?)))
    }

    /// Only the matches inside the box drawn around `other`'s first match.
    fn inside(&self, py: Python<'_>, other: &PyLocator) -> PyResult<PyLocator> {
        Ok(self.with(py, Step::Inside(self.anchor(py, other)?)))
    }

    /// Only the `n`-th match (0-based) of those the scopes kept.
    fn nth(&self, py: Python<'_>, n: usize) -> PyLocator {
        self.with(py, Step::Nth(n))
    }

    /// Only the first match.
    fn first(&self, py: Python<'_>) -> PyLocator {
        self.with(py, Step::Nth(0))
    }

    /// Only the last match.
    fn last(&self, py: Python<'_>) -> PyLocator {
        self.with(py, Step::Last)
    }

    /// The same locator retrying for `seconds` instead of the session's timeout.
    fn within(&self, py: Python<'_>, seconds: f64) -> PyResult<PyLocator> {
        crate::arguments::seconds(py, "within", seconds)?;
        Ok(PyLocator {
            session: self.session.clone_ref(py),
            recipe: self.recipe.clone(),
            timeout: Some(seconds),
        })
    }

    /// What it locates on the screen now, without retrying: a list of `Match`.
    fn matches(&self, py: Python<'_>) -> PyResult<Vec<PyMatch>> {
        let session = &self.session.get().inner;
        let live = self.recipe.build(session).map_err(|e| raise(py, e))?;
        Ok(live.now().matches().into_iter().map(PyMatch::from).collect())
    }

    /// Asserts that something is located, once it is; returns the screen it held on.
    fn assert_visible(&self, py: Python<'_>) -> PyResult<String> {
        self.assert(py, |live| live.assert_visible())
    }

    /// Clicks the middle of the first located match once there is one (retrying as
    /// `assert_visible`); returns the screen it clicked on.
    fn click(&self, py: Python<'_>) -> PyResult<String> {
        self.assert(py, |live| live.click())
    }

    /// Asserts that nothing is located, once nothing is (a message gone, a popup closed).
    fn assert_gone(&self, py: Python<'_>) -> PyResult<String> {
        self.assert(py, |live| live.assert_gone())
    }

    /// Asserts that `expected` matches are located, once that many are.
    fn assert_count(&self, py: Python<'_>, expected: usize) -> PyResult<String> {
        self.assert(py, move |live| live.assert_count(expected))
    }

    /// Asserts that the located text matches the regex `pattern`, once it does.
    fn assert_text(&self, py: Python<'_>, pattern: String) -> PyResult<String> {
        self.assert(py, move |live| live.assert_text(&pattern))
    }

    /// Asserts that every located cell has the style asked for, once it does: colours by
    /// name (`"yellow"`, `"light-red"`, `"#ff8800"`, `208`, `"default"`), attributes as
    /// `True` (on) or `False` (off); what is not given may be anything.
    #[pyo3(signature = (*, fg=None, bg=None, bold=None, dim=None, italic=None, underline=None, inverse=None, strikethrough=None, blink=None, hidden=None, overline=None))]
    #[allow(clippy::too_many_arguments)]
    fn assert_style(
        &self,
        py: Python<'_>,
        fg: Option<String>,
        bg: Option<String>,
        bold: Option<bool>,
        dim: Option<bool>,
        italic: Option<bool>,
        underline: Option<bool>,
        inverse: Option<bool>,
        strikethrough: Option<bool>,
        blink: Option<bool>,
        hidden: Option<bool>,
        overline: Option<bool>,
    ) -> PyResult<String> {
        let mut expected = StyleMatch::new();
        if let Some(fg) = fg {
            expected = expected.fg(&fg).map_err(|e| raise(py, e))?;
        }
        if let Some(bg) = bg {
            expected = expected.bg(&bg).map_err(|e| raise(py, e))?;
        }
        expected.bold = bold;
        expected.dim = dim;
        expected.italic = italic;
        expected.underline = underline;
        expected.inverse = inverse;
        expected.strikethrough = strikethrough;
        expected.blink = blink;
        expected.hidden = hidden;
        expected.overline = overline;
        self.assert(py, move |live| live.assert_style(&expected))
    }

    fn __repr__(&self) -> String {
        let target = match &self.recipe.target {
            Target::Pattern(p) => format!("/{p}/"),
            Target::Row(r) => format!("row {r}"),
            Target::Cells(r, a, b) => format!("row {r}, columns {a}-{}", b.saturating_sub(1)),
        };
        format!("Locator({target}, {} scopes)", self.recipe.steps.len())
    }
}
