//! Where on the screen a locator looks: rows, columns, a rectangle, or a place relative
//! to what another locator found (below, above, right or left of it, inside the box drawn
//! around it), and which of its matches it keeps (`nth`, `first`, `last`).
//!
//! A scope only filters: the locator finds every match on the whole screen, then keeps
//! those whose cells all lie inside the region. What it left out is kept too, so a
//! failure can say where the text was instead ("found only at row 29, outside rows 3-27").
//! A wait limited to a region ([`Condition::text_in`], the faces' `--in-rows`) is the
//! same filter on every new screen.

use super::{Locator, Span};
use crate::error::Result;
use crate::snapshot::{Snapshot, compile};
use crate::wait::Condition;

/// A rectangle of cells: rows and columns, each end exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rect {
    pub(crate) rows: (u16, u16),
    pub(crate) cols: (u16, u16),
}

impl Rect {
    /// The whole screen of `cols` × `rows`.
    fn all() -> Rect {
        Rect {
            rows: (0, u16::MAX),
            cols: (0, u16::MAX),
        }
    }

    fn holds(&self, span: &Span) -> bool {
        (self.rows.0..self.rows.1).contains(&span.row)
            && span.cols.0 >= self.cols.0
            && span.cols.1 <= self.cols.1
    }

    /// The cells both hold.
    fn and(self, other: Rect) -> Rect {
        Rect {
            rows: (self.rows.0.max(other.rows.0), self.rows.1.min(other.rows.1)),
            cols: (self.cols.0.max(other.cols.0), self.cols.1.min(other.cols.1)),
        }
    }
}

/// Where a place is relative to another locator's first match (the data is the mouse
/// grammar's too: a scoped target places itself the same way).
pub use crate::keys::mouse::Relation;

impl Relation {
    fn words(self) -> &'static str {
        match self {
            Relation::Below => "below",
            Relation::Above => "above",
            Relation::RightOf => "right of",
            Relation::LeftOf => "left of",
            Relation::Inside => "inside the box around",
        }
    }

    /// The region this relation gives around `anchor` on `screen`; `None` when there is
    /// none (no box around it).
    pub(crate) fn region(self, screen: &Snapshot, anchor: Span) -> Option<Rect> {
        let all = Rect::all();
        Some(match self {
            Relation::Below => Rect {
                rows: (anchor.row + 1, u16::MAX),
                ..all
            },
            Relation::Above => Rect {
                rows: (0, anchor.row),
                ..all
            },
            Relation::RightOf => Rect {
                rows: (anchor.row, anchor.row + 1),
                cols: (anchor.cols.1, u16::MAX),
            },
            Relation::LeftOf => Rect {
                rows: (anchor.row, anchor.row + 1),
                cols: (0, anchor.cols.0),
            },
            Relation::Inside => box_around(screen, anchor)?,
        })
    }
}

/// Whether the cell at `row`, `col` draws a vertical border.
fn vertical(screen: &Snapshot, row: u16, col: u16) -> bool {
    screen
        .cell(row, col)
        .is_some_and(|c| matches!(c.text(), "│" | "┃" | "║" | "|" | "╎" | "┆" | "┊" | "▏" | "▕"))
}

/// Whether the cell draws a horizontal border or a corner or tee of one.
fn horizontal(screen: &Snapshot, row: u16, col: u16) -> bool {
    screen.cell(row, col).is_some_and(|c| {
        let t = c.text();
        t.chars()
            .next()
            .is_some_and(|ch| ('\u{2500}'..='\u{257f}').contains(&ch) && !matches!(t, "│" | "┃" | "║"))
            || matches!(t, "-" | "+" | "=" | "▔" | "▁")
    })
}

/// The inside of the box drawn around `anchor`: the nearest vertical borders left and
/// right of it on its row, and the nearest horizontal borders above and below it between
/// them; or, where `anchor` is a title on a box's top border, that box's inside.
fn box_around(screen: &Snapshot, anchor: Span) -> Option<Rect> {
    enclosing_box(screen, anchor).or_else(|| titled_box(screen, anchor))
}

/// The box whose top border `anchor` sits on (a pane's title, as ratatui and ncurses
/// draw one): walking out from it along its row over spaces and border lines, the first
/// cell each side with a vertical border under it is a corner; the inside runs from the
/// row under the title to the next horizontal border between the corners.
fn titled_box(screen: &Snapshot, anchor: Span) -> Option<Rect> {
    let (cols, rows) = screen.size();
    let row = anchor.row;
    let on_border = |c: u16| {
        screen
            .cell(row, c)
            .is_some_and(|cell| cell.text().trim().is_empty())
            || horizontal(screen, row, c)
    };
    let corner = |c: &u16| horizontal(screen, row, *c) && vertical(screen, row + 1, *c);
    let left = (0..anchor.cols.0)
        .rev()
        .take_while(|&c| on_border(c))
        .find(corner)?;
    let right = (anchor.cols.1..cols).take_while(|&c| on_border(c)).find(corner)?;
    let bottom = (row + 1..rows).find(|&r| horizontal(screen, r, left + 1))?;
    Some(Rect {
        rows: (row + 1, bottom),
        cols: (left + 1, right),
    })
}

/// The box drawn around `anchor` (see [`box_around`]).
fn enclosing_box(screen: &Snapshot, anchor: Span) -> Option<Rect> {
    let (cols, rows) = screen.size();
    let row = anchor.row;
    let left = (0..anchor.cols.0).rev().find(|&c| vertical(screen, row, c))?;
    let right = (anchor.cols.1..cols).find(|&c| vertical(screen, row, c))?;
    // A border row: horizontal across the inside's first column.
    let top = (0..row).rev().find(|&r| horizontal(screen, r, left + 1))?;
    let bottom = (row + 1..rows).find(|&r| horizontal(screen, r, left + 1))?;
    Some(Rect {
        rows: (top + 1, bottom),
        cols: (left + 1, right),
    })
}

/// Finds an anchor's match on a screen.
pub(crate) type FindAnchor = std::sync::Arc<dyn Fn(&Snapshot) -> Option<Span> + Send + Sync>;

/// What a relative scope is relative to: another locator's first match, found on the
/// screen being searched (so a live locator finds it again on every screen).
#[derive(Clone)]
pub(crate) struct Anchor {
    pub(crate) find: FindAnchor,
    /// The other locator, in words (`/Name:/`).
    pub(crate) words: String,
}

impl std::fmt::Debug for Anchor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.words)
    }
}

/// One limit on a locator: a region, or which match it keeps.
#[derive(Clone, Debug)]
pub(crate) enum Scope {
    /// Inside this rectangle.
    Within(Rect),
    /// Relative to another locator's first match on the same screen.
    Relative(Relation, Anchor),
    /// The n-th match (0-based) of what the scopes before it kept.
    Nth(usize),
    /// The last match.
    Last,
}

/// `a-b` for an end-exclusive range, 0-based as every face numbers rows and columns.
fn range_words((start, end): (u16, u16)) -> String {
    match end {
        u16::MAX => format!("{start} on"),
        end if end <= start + 1 => format!("{start}"),
        end => format!("{start}-{}", end - 1),
    }
}

impl Scope {
    /// The scope in words, as a failure names the region searched.
    pub(crate) fn words(&self) -> String {
        match self {
            Scope::Within(rect) => {
                let mut parts = Vec::new();
                if rect.rows != (0, u16::MAX) {
                    parts.push(format!("rows {}", range_words(rect.rows)));
                }
                if rect.cols != (0, u16::MAX) {
                    parts.push(format!("columns {}", range_words(rect.cols)));
                }
                format!("in {}", parts.join(", "))
            }
            Scope::Relative(relation, anchor) => format!("{} {}", relation.words(), anchor.words),
            Scope::Nth(n) => format!("(the {} match)", ordinal(n + 1)),
            Scope::Last => "(the last match)".into(),
        }
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, … `11th`, `21st`.
pub(crate) fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// `spans` as `scopes` leave them on `screen`: the kept spans, the spans a region left
/// out, and, when a relative scope found no anchor, why.
pub(crate) fn apply(
    screen: &Snapshot,
    spans: Vec<Span>,
    scopes: &[Scope],
) -> (Vec<Span>, Vec<Span>, Option<String>) {
    let mut kept = spans;
    let mut outside = Vec::new();
    for scope in scopes {
        let region = match scope {
            Scope::Within(rect) => Some(*rect),
            Scope::Relative(relation, anchor) => {
                let Some(found) = (anchor.find)(screen) else {
                    outside.append(&mut kept);
                    return (
                        kept,
                        outside,
                        Some(format!("{} is not on the screen", anchor.words)),
                    );
                };
                match relation.region(screen, found) {
                    Some(region) => Some(region),
                    None => {
                        outside.append(&mut kept);
                        return (
                            kept,
                            outside,
                            Some(format!("no box is drawn around {}", anchor.words)),
                        );
                    }
                }
            }
            Scope::Nth(n) => {
                kept = kept.get(*n).copied().into_iter().collect();
                None
            }
            Scope::Last => {
                kept = kept.last().copied().into_iter().collect();
                None
            }
        };
        if let Some(region) = region {
            let (inside, out): (Vec<Span>, Vec<Span>) = kept.into_iter().partition(|s| region.holds(s));
            kept = inside;
            outside.extend(out);
        }
    }
    (kept, outside, None)
}

/// A `Rect` from two ranges of any kind.
pub(crate) fn rect(rows: impl std::ops::RangeBounds<u16>, cols: impl std::ops::RangeBounds<u16>) -> Rect {
    fn bounds(range: impl std::ops::RangeBounds<u16>) -> (u16, u16) {
        use std::ops::Bound;
        let start = match range.start_bound() {
            Bound::Included(&s) => s,
            Bound::Excluded(&s) => s.saturating_add(1),
            Bound::Unbounded => 0,
        };
        let end = match range.end_bound() {
            Bound::Included(&e) => e.saturating_add(1),
            Bound::Excluded(&e) => e,
            Bound::Unbounded => u16::MAX,
        };
        (start, end)
    }
    Rect::all().and(Rect {
        rows: bounds(rows),
        cols: bounds(cols),
    })
}

impl Condition {
    /// Text matching `pattern` inside a region of the screen: `rows` and `cols` each the
    /// first and last (0-based, inclusive, as `--rows 3-27` and `Expect+Rows 3-27` say
    /// them; `None` for all). A match outside does not count — a status bar repeating a
    /// search term — and a failed wait says where the text was instead.
    pub fn text_in(pattern: &str, rows: Option<(u16, u16)>, cols: Option<(u16, u16)>) -> Result<Condition> {
        let re = compile(pattern)?;
        let bounds =
            |range: Option<(u16, u16)>| range.map_or((0, u16::MAX), |(a, b)| (a, b.saturating_add(1)));
        let (rows, cols) = (bounds(rows), bounds(cols));
        let within = Scope::Within(rect(rows.0..rows.1, cols.0..cols.1));
        let what = format!("text matching /{pattern}/ {} on the screen", within.words());
        let words = format!("/{pattern}/");
        let region = [within];
        let located =
            move |snap: &Snapshot| Locator::of_matches(snap, &re, words.clone()).with_scopes(&region);
        let (test, explain) = (located.clone(), located);
        Ok(Condition::explained(
            what,
            move |snap| test(snap).count() > 0,
            move |snap| Some(format!("found {}", explain(snap).nothing_found())),
        ))
    }
}
