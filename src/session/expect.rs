//! Assertions that retry: a part of the live screen, found again on every new screen, whose
//! assertions hold as soon as the screen bears them out and fail only when the session's
//! timeout (or [`LiveLocator::within`]) has passed — the `expect` of Playwright and
//! tui-test. A test then never asserts on a screen caught between two of the program's
//! writes, nor sleeps to avoid one.
//!
//! The failure is the [`Locator`] assertion's own report on the last screen (the caller's
//! line, expected and found in words, the located cells marked), saying how long it
//! retried. The waits behind it hand back whole frames (see `SessionBuilder::whole_frames`).

use std::ops::{Range, RangeBounds};
use std::panic::Location;
use std::sync::Arc;
use std::time::Duration;

use super::Session;
use crate::error::{ErrorKind, Result};
use crate::locate::{Anchor, Locator, Miss, Relation, Scope, StyleMatch};
use crate::snapshot::{Snapshot, compile};
use crate::wait::Condition;

/// What a [`LiveLocator`] finds on each screen.
#[derive(Clone)]
enum Target {
    /// Every match of a regex (its source kept for the report).
    Pattern(Arc<regex::Regex>, String),
    /// One row.
    Row(u16),
    /// Some cells of one row.
    Cells(u16, Range<u16>),
}

impl Target {
    fn on(&self, snapshot: &Snapshot) -> Locator {
        match self {
            Target::Pattern(re, pattern) => Locator::of_matches(snapshot, re, format!("/{pattern}/")),
            Target::Row(row) => snapshot.locate_row(*row),
            Target::Cells(row, cols) => snapshot.locate_cells(*row, cols.clone()),
        }
    }

    fn words(&self) -> String {
        match self {
            Target::Pattern(_, pattern) => format!("/{pattern}/"),
            Target::Row(row) => format!("row {row}"),
            Target::Cells(row, cols) => {
                format!("row {row}, columns {}-{}", cols.start, cols.end.saturating_sub(1))
            }
        }
    }
}

/// A live locator's target and scopes: what it finds on any one screen.
#[derive(Clone)]
struct Located {
    target: Target,
    scopes: Vec<Scope>,
}

impl Located {
    fn on_screen(&self, screen: &Snapshot) -> Locator {
        self.target.on(screen).with_scopes(&self.scopes)
    }
}

/// A part of the live screen with assertions that retry (made by [`Session::locate`],
/// [`Session::locate_row`] or [`Session::locate_cells`]). Each returns the screen it
/// held on.
///
/// ```no_run
/// # fn main() -> tuipilot::Result<()> {
/// use tuipilot::{Session, StyleMatch};
///
/// let s = Session::builder("my-todo-app").spawn()?;
/// s.send_text("buy milk\r")?;
/// s.locate("buy milk")?.assert_visible()?;
/// s.locate_row(15).assert_text("^1 tasks")?;
/// s.locate("buy milk")?.assert_style(&StyleMatch::new().bold().fg("White")?.bg("Blue")?)?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct LiveLocator<'s> {
    session: &'s Session,
    target: Target,
    /// Where it looks and which matches it keeps (see [`Locator::in_rows`]).
    scopes: Vec<Scope>,
    timeout: Duration,
    /// Ends a retry early (a face whose caller pressed Ctrl-C).
    cancel: Option<super::Cancel>,
}

impl Session {
    /// Every match of `pattern` on the live screen, with assertions that retry.
    pub fn locate(&self, pattern: &str) -> Result<LiveLocator<'_>> {
        Ok(self.live(Target::Pattern(Arc::new(compile(pattern)?), pattern.to_string())))
    }

    /// One row of the live screen (0-based), with assertions that retry.
    pub fn locate_row(&self, row: u16) -> LiveLocator<'_> {
        self.live(Target::Row(row))
    }

    /// Some cells of one row of the live screen (`cols` end exclusive), with assertions
    /// that retry.
    pub fn locate_cells(&self, row: u16, cols: Range<u16>) -> LiveLocator<'_> {
        self.live(Target::Cells(row, cols))
    }

    fn live(&self, target: Target) -> LiveLocator<'_> {
        LiveLocator {
            session: self,
            target,
            scopes: Vec::new(),
            timeout: self.timeout(),
            cancel: None,
        }
    }
}

impl LiveLocator<'_> {
    /// Retries for `timeout` instead of the session's timeout.
    pub fn within(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Lets `cancel` end its assertions' retries early, with
    /// [`Error::Cancelled`](crate::Error::Cancelled) (for a face whose caller can
    /// interrupt, as Python's Ctrl-C).
    pub fn cancellable(mut self, cancel: &super::Cancel) -> Self {
        self.cancel = Some(cancel.clone());
        self
    }

    /// What it locates on the screen as it is now, scoped, without retrying: to read
    /// ([`Locator::matches`], [`Locator::count`]) rather than assert.
    pub fn now(&self) -> Locator {
        self.on(&self.session.snapshot())
    }

    /// What it locates on `screen`, scoped.
    fn on(&self, screen: &Snapshot) -> Locator {
        self.clone_static().on_screen(screen)
    }

    /// Its target and scopes, apart from the session (what a wait's condition holds).
    fn clone_static(&self) -> Located {
        Located {
            target: self.target.clone(),
            scopes: self.scopes.clone(),
        }
    }

    /// What it locates, in words, with its scopes.
    fn words(&self) -> String {
        let mut words = vec![self.target.words()];
        words.extend(self.scopes.iter().map(Scope::words));
        words.join(" ")
    }

    fn scoped(mut self, scope: Scope) -> Self {
        self.scopes.push(scope);
        self
    }

    /// Only the matches in `rows` (0-based; any range: `3..28`, `3..=27`, `5..`), on
    /// every screen it retries on.
    pub fn in_rows(self, rows: impl RangeBounds<u16>) -> Self {
        self.scoped(Scope::Within(crate::locate::rect(rows, ..)))
    }

    /// Only the matches in `cols` (0-based).
    pub fn in_cols(self, cols: impl RangeBounds<u16>) -> Self {
        self.scoped(Scope::Within(crate::locate::rect(.., cols)))
    }

    /// Only the matches inside the rectangle of `rows` and `cols` (0-based).
    pub fn in_rect(self, rows: impl RangeBounds<u16>, cols: impl RangeBounds<u16>) -> Self {
        self.scoped(Scope::Within(crate::locate::rect(rows, cols)))
    }

    /// Only the matches placed as `relation` says relative to `other`'s first match,
    /// found again on each screen (see [`Locator::relative_to`]).
    pub fn relative_to(self, relation: Relation, other: &LiveLocator<'_>) -> Self {
        let other_located = other.clone_static();
        let words = other.words();
        self.scoped(Scope::Relative(
            relation,
            Anchor {
                find: Arc::new(move |screen| other_located.on_screen(screen).first_span()),
                words,
            },
        ))
    }

    /// Only the matches in the rows under `other`'s first match.
    pub fn below(self, other: &LiveLocator<'_>) -> Self {
        self.relative_to(Relation::Below, other)
    }

    /// Only the matches in the rows over `other`'s first match.
    pub fn above(self, other: &LiveLocator<'_>) -> Self {
        self.relative_to(Relation::Above, other)
    }

    /// Only the matches on `other`'s row, after it.
    pub fn right_of(self, other: &LiveLocator<'_>) -> Self {
        self.relative_to(Relation::RightOf, other)
    }

    /// Only the matches on `other`'s row, before it.
    pub fn left_of(self, other: &LiveLocator<'_>) -> Self {
        self.relative_to(Relation::LeftOf, other)
    }

    /// Only the matches inside the box drawn around `other`'s first match.
    pub fn inside(self, other: &LiveLocator<'_>) -> Self {
        self.relative_to(Relation::Inside, other)
    }

    /// Only the `n`-th match (0-based) of those the scopes kept.
    pub fn nth(self, n: usize) -> Self {
        self.scoped(Scope::Nth(n))
    }

    /// Only the first match.
    pub fn first(self) -> Self {
        self.nth(0)
    }

    /// Only the last match.
    pub fn last(self) -> Self {
        self.scoped(Scope::Last)
    }

    /// Asserts that something is located, once it is.
    #[track_caller]
    pub fn assert_visible(&self) -> Result<Snapshot> {
        self.retry("visible", Locator::visible_miss)
    }

    /// Asserts that nothing is located, once nothing is (a message gone, a popup closed).
    #[track_caller]
    pub fn assert_gone(&self) -> Result<Snapshot> {
        self.retry("gone", |l| l.count_miss(0))
    }

    /// Asserts how many matches are located, once that many are.
    #[track_caller]
    pub fn assert_count(&self, expected: usize) -> Result<Snapshot> {
        self.retry(&format!("{expected} of them"), move |l| l.count_miss(expected))
    }

    /// Asserts that the located text matches `pattern`, once it does.
    #[track_caller]
    pub fn assert_text(&self, pattern: &str) -> Result<Snapshot> {
        let re = compile(pattern)?;
        self.retry(&format!("reading /{pattern}/"), move |l| l.text_miss(&re))
    }

    /// Asserts that every located cell has the style asked for, once it does.
    #[track_caller]
    pub fn assert_style(&self, expected: &StyleMatch) -> Result<Snapshot> {
        let expected = expected.clone();
        self.retry(&format!("drawn {expected}"), move |l| l.style_miss(&expected))
    }

    /// Clicks the middle of the first located match once there is one (retrying as
    /// [`assert_visible`](Self::assert_visible) does), as `click COL,ROW` would: the press
    /// held until the program has read it. Returns the screen it clicked on.
    #[track_caller]
    pub fn click(&self) -> Result<Snapshot> {
        let screen = self.assert_visible()?;
        let located = self.on(&screen);
        if let Some(found) = located.matches().into_iter().next() {
            let line = found.text.lines().next().unwrap_or_default();
            let width = unicode_width::UnicodeWidthStr::width(line) as u16;
            let col = found.col + width.saturating_sub(1) / 2;
            let click = super::Input::mouse(&format!("click {col},{}", found.row))?;
            self.session.send(&click)?;
        }
        Ok(screen)
    }

    /// Waits until `miss` finds nothing wrong with the located part of a screen; else
    /// reports what it finds wrong on the last screen, at the caller, saying how long it
    /// retried.
    #[track_caller]
    fn retry(
        &self,
        what: &str,
        miss: impl Fn(&Locator) -> Option<Miss> + Send + Sync + 'static,
    ) -> Result<Snapshot> {
        let caller = Location::caller();
        let started = std::time::Instant::now();
        let miss = Arc::new(miss);
        let (located, test) = (self.clone_static(), miss.clone());
        let condition = Condition::described(format!("{} {what}", self.words()), move |screen| {
            test(&located.on_screen(screen)).is_none()
        });
        let session = self.session;
        match session.wait_screen(
            &condition,
            session.baseline_now(),
            self.timeout,
            self.cancel.as_ref(),
            None,
        ) {
            Ok(screen) => Ok(screen),
            Err(e) if matches!(e.kind(), ErrorKind::Timeout | ErrorKind::ExitedWhileWaiting) => {
                let last = session.snapshot();
                let located = self.on(&last);
                match miss(&located) {
                    Some(mut found) => {
                        let exited = if e.kind() == ErrorKind::ExitedWhileWaiting {
                            ", until the program exited"
                        } else {
                            ""
                        };
                        found.expected = format!(
                            "{} (retried for {:.2}s{exited})",
                            found.expected,
                            self.timeout.as_secs_f64()
                        );
                        let files = session.shared.lock().story_files();
                        let retried = (started.elapsed(), self.timeout);
                        Err(located.failure(caller, found, Some(files), Some(retried)))
                    }
                    // It came true just as the time ran out.
                    None => Ok(last),
                }
            }
            Err(e) => Err(e),
        }
    }
}
