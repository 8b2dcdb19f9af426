//! Locators: a part of the screen — found by text, a row, or a range of cells — and the
//! assertions a test makes on it.
//!
//! An assertion that fails returns [`Error::Assertion`] whose report reads like a failed
//! wait's: the caller's `file:line`, what was expected and what was found (colours by
//! name), and the screen with the located cells marked under their row. A
//! [`StyleMatch`] also makes a wait ([`StyleMatch::on`]), so a test can wait for the
//! selection to move instead of sleeping.

mod scope;
mod target;

use std::fmt;
use std::ops::{Range, RangeBounds};
use std::panic::Location;

pub use scope::Relation;
pub(crate) use scope::{Anchor, Scope, rect};
pub(crate) use target::Placing;

use crate::color::Color;
pub use crate::error::AssertionError;
use crate::error::{Error, Result};
use crate::snapshot::{Snapshot, Style, compile};
use crate::style::UnderlineStyle;
use crate::wait::Condition;

/// The cells of every match of `re` (as [`Snapshot::find_regex`] finds them; a match
/// across rows covers its part of each row).
fn spans_of(snapshot: &Snapshot, re: &regex::Regex) -> Vec<Span> {
    let mut spans = Vec::new();
    for m in snapshot.find_regex(re) {
        let mut row = m.row;
        let mut col = m.col;
        for (i, part) in m.text.split('\n').enumerate() {
            if i > 0 {
                row += 1;
                col = 0;
            }
            let width = unicode_width::UnicodeWidthStr::width(part) as u16;
            spans.push(Span {
                row,
                cols: (col, col + width.max(1)),
            });
        }
    }
    spans
}

/// The style of each cell of a span.
fn span_styles(snapshot: &Snapshot, span: Span) -> impl Iterator<Item = Style> + '_ {
    (span.cols.0..span.cols.1).filter_map(move |col| snapshot.style_at(span.row, col))
}

/// Some cells of one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) row: u16,
    pub(crate) cols: (u16, u16),
}

/// A part of a snapshot, with assertions. Made by [`Snapshot::locate`],
/// [`Snapshot::locate_row`] or [`Snapshot::locate_cells`].
#[derive(Clone, Debug)]
pub struct Locator {
    snapshot: Snapshot,
    what: String,
    spans: Vec<Span>,
    /// The pattern it searched for, if it searched: what the closest line is measured by.
    pattern: Option<String>,
    /// Every match on the whole screen, before the scopes.
    all: Vec<Span>,
    /// Where it looks and which matches it keeps, in the order given.
    scopes: Vec<Scope>,
    /// The matches the scopes' regions left out.
    outside: Vec<Span>,
    /// Why a relative scope found no region (its anchor missing, no box around it).
    unplaced: Option<String>,
}

/// Which attributes a located cell must have; unset ones may be anything. Every attribute
/// a cell records can be asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StyleMatch {
    /// The foreground colour.
    pub fg: Option<Color>,
    /// The background colour.
    pub bg: Option<Color>,
    /// Bold or not.
    pub bold: Option<bool>,
    /// Dim (faint) or not.
    pub dim: Option<bool>,
    /// Italic or not.
    pub italic: Option<bool>,
    /// Underlined (in any style) or not.
    pub underline: Option<bool>,
    /// Underlined in this style (`Single` also matches a plain SGR 4).
    pub underline_style: Option<UnderlineStyle>,
    /// The underline's colour (`Default`: the text's colour).
    pub underline_color: Option<Color>,
    /// Inverse (reverse video) or not.
    pub inverse: Option<bool>,
    /// Struck through or not.
    pub strikethrough: Option<bool>,
    /// Blinking or not.
    pub blink: Option<bool>,
    /// Hidden (concealed) or not.
    pub hidden: Option<bool>,
    /// Overlined or not.
    pub overline: Option<bool>,
}

fn colour(name: &str) -> Result<Color> {
    Color::named(name).ok_or_else(|| Error::InvalidArgument {
        message: format!(
            "unknown colour `{name}`: use ratatui's names (Yellow, Gray = 7, DarkGray = 8, LightRed, White = 15), bright-* for 8-15, #rrggbb, a palette index or default"
        ),
    })
}

/// How a cell is underlined, with a plain SGR 4 counted as `Single`.
fn underline_kind(style: &Style) -> UnderlineStyle {
    match (style.underline, style.underline_style) {
        (false, _) => UnderlineStyle::None,
        (true, UnderlineStyle::None) => UnderlineStyle::Single,
        (true, kind) => kind,
    }
}

impl StyleMatch {
    /// Any style.
    pub fn new() -> StyleMatch {
        StyleMatch::default()
    }

    /// This foreground, by name (`Yellow`, `LightRed`, `White` = 15, `#ff8800`, `208`).
    pub fn fg(mut self, name: &str) -> Result<StyleMatch> {
        self.fg = Some(colour(name)?);
        Ok(self)
    }

    /// This background, by name.
    pub fn bg(mut self, name: &str) -> Result<StyleMatch> {
        self.bg = Some(colour(name)?);
        Ok(self)
    }

    /// Bold.
    pub fn bold(mut self) -> StyleMatch {
        self.bold = Some(true);
        self
    }

    /// Dim (faint).
    pub fn dim(mut self) -> StyleMatch {
        self.dim = Some(true);
        self
    }

    /// Italic.
    pub fn italic(mut self) -> StyleMatch {
        self.italic = Some(true);
        self
    }

    /// Underlined, in any style.
    pub fn underline(mut self) -> StyleMatch {
        self.underline = Some(true);
        self
    }

    /// Underlined in this style (`UnderlineStyle::None`: not underlined).
    pub fn underline_style(mut self, style: UnderlineStyle) -> StyleMatch {
        self.underline_style = Some(style);
        self
    }

    /// An underline of this colour, by name.
    pub fn underline_color(mut self, name: &str) -> Result<StyleMatch> {
        self.underline_color = Some(colour(name)?);
        Ok(self)
    }

    /// Inverse video — how most TUIs draw a selection.
    pub fn inverse(mut self) -> StyleMatch {
        self.inverse = Some(true);
        self
    }

    /// Struck through — how todo apps draw a task done.
    pub fn strikethrough(mut self) -> StyleMatch {
        self.strikethrough = Some(true);
        self
    }

    /// Blinking.
    pub fn blink(mut self) -> StyleMatch {
        self.blink = Some(true);
        self
    }

    /// Hidden (concealed).
    pub fn hidden(mut self) -> StyleMatch {
        self.hidden = Some(true);
        self
    }

    /// Overlined.
    pub fn overline(mut self) -> StyleMatch {
        self.overline = Some(true);
        self
    }

    /// Whether `style` has every attribute asked for.
    pub fn matches(&self, style: &Style) -> bool {
        self.mismatch(style).is_none()
    }

    /// The first attribute `style` lacks, in words (`fg is gray (7), not white (15)`).
    fn mismatch(&self, style: &Style) -> Option<String> {
        let flags = [
            (self.bold, style.bold, "bold"),
            (self.dim, style.dim, "dim"),
            (self.italic, style.italic, "italic"),
            (self.underline, style.underline, "underline"),
            (self.inverse, style.inverse, "inverse"),
            (self.strikethrough, style.strikethrough, "strikethrough"),
            (self.blink, style.blink, "blink"),
            (self.hidden, style.hidden, "hidden"),
            (self.overline, style.overline, "overline"),
        ];
        for (wanted, has, word) in flags {
            match wanted {
                Some(true) if !has => return Some(format!("not {word}")),
                Some(false) if has => return Some(word.to_string()),
                _ => {}
            }
        }
        if let Some(kind) = self.underline_style
            && kind != underline_kind(style)
        {
            return Some(format!("underline {:?}, not {kind:?}", underline_kind(style)).to_lowercase());
        }
        let colours = [
            (self.fg, style.fg, "fg"),
            (self.bg, style.bg, "bg"),
            (self.underline_color, style.underline_color, "underline colour"),
        ];
        for (wanted, has, which) in colours {
            match wanted {
                Some(wanted) if wanted != has => {
                    let mut words = format!("{which} is {has}, not {wanted}");
                    if let Some(hint) = crate::color::normal_or_bright_hint(wanted, has) {
                        words.push_str(&format!(" — {hint}"));
                    }
                    return Some(words);
                }
                _ => {}
            }
        }
        None
    }

    /// A wait for text matching `pattern` drawn in this style (every cell of some match):
    /// `s.wait(&StyleMatch::new().inverse().on("Cherry")?)` waits for the selection to
    /// reach Cherry, and a failure says so in words, with the style the text had.
    pub fn on(&self, pattern: &str) -> Result<Condition> {
        let re = compile(pattern)?;
        let found_re = re.clone();
        let wanted = self.clone();
        let told = self.clone();
        Ok(Condition::explained(
            format!("text matching /{pattern}/ drawn {self}"),
            // Evaluated on every new screen: no copy of the snapshot.
            move |snap| {
                spans_of(snap, &re)
                    .into_iter()
                    .any(|span| span_styles(snap, span).all(|s| wanted.matches(&s)))
            },
            move |snap| {
                let spans = spans_of(snap, &found_re);
                let Some(span) = spans.first() else {
                    return Some(format!("no text matches /{}/", found_re.as_str()));
                };
                let (col, style) = (span.cols.0..)
                    .zip(span_styles(snap, *span))
                    .find(|(_, s)| !told.matches(s))?;
                let why = told.mismatch(&style).unwrap_or_default();
                Some(format!(
                    "the first match, at row {} col {col}, is drawn {style}: {why}",
                    span.row
                ))
            },
        ))
    }
}

impl fmt::Display for StyleMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words: Vec<String> = Vec::new();
        for (value, word) in [
            (self.bold, "bold"),
            (self.dim, "dim"),
            (self.italic, "italic"),
            (self.underline, "underline"),
            (self.inverse, "inverse"),
            (self.strikethrough, "strikethrough"),
            (self.blink, "blink"),
            (self.hidden, "hidden"),
            (self.overline, "overline"),
        ] {
            match value {
                Some(true) => words.push(word.into()),
                Some(false) => words.push(format!("not {word}")),
                None => {}
            }
        }
        if let Some(kind) = self.underline_style {
            words.push(format!("underline-style={kind:?}").to_lowercase());
        }
        if let Some(fg) = self.fg {
            words.push(format!("fg={fg}"));
        }
        if let Some(bg) = self.bg {
            words.push(format!("bg={bg}"));
        }
        if let Some(colour) = self.underline_color {
            words.push(format!("underline-color={colour}"));
        }
        if words.is_empty() {
            f.write_str("in any style")
        } else {
            f.write_str(&words.join(" "))
        }
    }
}

impl Snapshot {
    /// Every match of `pattern` (as [`find`](Snapshot::find) finds them; a match across
    /// rows covers its part of each row).
    pub fn locate(&self, pattern: &str) -> Result<Locator> {
        let re = compile(pattern)?;
        Ok(Locator::of_matches(self, &re, format!("/{pattern}/")))
    }

    /// One row (0-based), up to its last character.
    pub fn locate_row(&self, row: u16) -> Locator {
        let len = self
            .row(row)
            .map_or(0, |line| unicode_width::UnicodeWidthStr::width(line) as u16);
        self.locate_cells(row, 0..len.max(1))
    }

    /// Some cells of one row (0-based, `cols` end exclusive).
    pub fn locate_cells(&self, row: u16, cols: Range<u16>) -> Locator {
        let (width, height) = self.size();
        let spans = if row < height && cols.start < cols.end.min(width) {
            vec![Span {
                row,
                cols: (cols.start, cols.end.min(width)),
            }]
        } else {
            Vec::new()
        };
        Locator::new(
            self,
            format!("row {row}, columns {}-{}", cols.start, cols.end.saturating_sub(1)),
            spans,
            None,
        )
    }
}

impl Locator {
    pub(crate) fn of_matches(snapshot: &Snapshot, re: &regex::Regex, what: String) -> Locator {
        Locator::new(
            snapshot,
            what,
            spans_of(snapshot, re),
            Some(re.as_str().to_string()),
        )
    }

    fn new(snapshot: &Snapshot, what: String, spans: Vec<Span>, pattern: Option<String>) -> Locator {
        Locator {
            snapshot: snapshot.clone(),
            what,
            all: spans.clone(),
            spans,
            pattern,
            scopes: Vec::new(),
            outside: Vec::new(),
            unplaced: None,
        }
    }

    /// This locator with `scopes` added, its matches kept or left out by them.
    pub(crate) fn with_scopes(mut self, scopes: &[Scope]) -> Locator {
        self.scopes.extend_from_slice(scopes);
        let (kept, outside, unplaced) = scope::apply(&self.snapshot, self.all.clone(), &self.scopes);
        (self.spans, self.outside, self.unplaced) = (kept, outside, unplaced);
        self
    }

    /// The first located span (what another locator's relative scope is relative to).
    pub(crate) fn first_span(&self) -> Option<Span> {
        self.spans.first().copied()
    }

    /// What is located, in words, with its scopes: `/Tokyo/ in rows 3-27`.
    fn described(&self) -> String {
        let mut words = vec![self.what.clone()];
        words.extend(self.scopes.iter().map(Scope::words));
        words.join(" ")
    }

    /// Only the matches in `rows` (0-based; any range: `3..28`, `3..=27`, `5..`).
    pub fn in_rows(self, rows: impl RangeBounds<u16>) -> Locator {
        self.with_scopes(&[Scope::Within(scope::rect(rows, ..))])
    }

    /// Only the matches in `cols` (0-based).
    pub fn in_cols(self, cols: impl RangeBounds<u16>) -> Locator {
        self.with_scopes(&[Scope::Within(scope::rect(.., cols))])
    }

    /// Only the matches inside the rectangle of `rows` and `cols` (0-based).
    pub fn in_rect(self, rows: impl RangeBounds<u16>, cols: impl RangeBounds<u16>) -> Locator {
        self.with_scopes(&[Scope::Within(scope::rect(rows, cols))])
    }

    /// Only the matches placed as `relation` says relative to `other`'s first match on
    /// this screen: `below`, `above`, on its row `right_of` or `left_of` it, or `inside`
    /// the box drawn around it.
    pub fn relative_to(self, relation: Relation, other: &Locator) -> Locator {
        let anchor = other.first_span();
        let words = other.described();
        self.with_scopes(&[Scope::Relative(
            relation,
            Anchor {
                find: std::sync::Arc::new(move |_| anchor),
                words,
            },
        )])
    }

    /// Only the matches in the rows under `other`'s first match.
    pub fn below(self, other: &Locator) -> Locator {
        self.relative_to(Relation::Below, other)
    }

    /// Only the matches in the rows over `other`'s first match.
    pub fn above(self, other: &Locator) -> Locator {
        self.relative_to(Relation::Above, other)
    }

    /// Only the matches on `other`'s row, after it.
    pub fn right_of(self, other: &Locator) -> Locator {
        self.relative_to(Relation::RightOf, other)
    }

    /// Only the matches on `other`'s row, before it.
    pub fn left_of(self, other: &Locator) -> Locator {
        self.relative_to(Relation::LeftOf, other)
    }

    /// Only the matches inside the box drawn around `other`'s first match (box-drawing
    /// or `+-|` borders).
    pub fn inside(self, other: &Locator) -> Locator {
        self.relative_to(Relation::Inside, other)
    }

    /// Only the `n`-th match (0-based) of those the scopes kept.
    pub fn nth(self, n: usize) -> Locator {
        self.with_scopes(&[Scope::Nth(n)])
    }

    /// Only the first match.
    pub fn first(self) -> Locator {
        self.nth(0)
    }

    /// Only the last match.
    pub fn last(self) -> Locator {
        self.with_scopes(&[Scope::Last])
    }

    /// What was found instead of a located match: where the text was outside the region,
    /// why the region is not there, or nothing.
    pub(crate) fn nothing_found(&self) -> String {
        if let Some(why) = &self.unplaced {
            return format!("nothing ({why})");
        }
        if self.outside.is_empty() {
            return match self.all.len() {
                0 => "nothing".into(),
                // Matches there were, the pick (`nth`) went past them.
                n => format!("only {n} {}", if n == 1 { "match" } else { "matches" }),
            };
        }
        let places: Vec<String> = self
            .outside
            .iter()
            .take(3)
            .map(|s| format!("row {} column {}", s.row, s.cols.0))
            .collect();
        let more = self.outside.len().saturating_sub(3);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let region: Vec<String> = self.scopes.iter().map(Scope::words).collect();
        format!(
            "only at {}{more}, outside the region ({})",
            places.join(", "),
            region.join(" ")
        )
    }

    /// How many matches (or rows) were located.
    pub fn count(&self) -> usize {
        self.spans.len()
    }

    /// Every located part as a [`Match`](crate::Match): its row, first column and text.
    pub fn matches(&self) -> Vec<crate::Match> {
        self.spans
            .iter()
            .map(|span| crate::Match {
                row: span.row,
                col: span.cols.0,
                text: self.snapshot.cells_text(span.row, span.cols.0, span.cols.1),
            })
            .collect()
    }

    /// The located text (the first match, or the row or cells).
    pub fn text(&self) -> String {
        self.spans.first().map_or_else(String::new, |span| {
            self.snapshot.cells_text(span.row, span.cols.0, span.cols.1)
        })
    }

    /// The style of the first located cell.
    pub fn style(&self) -> Option<Style> {
        let span = self.spans.first()?;
        self.snapshot.style_at(span.row, span.cols.0)
    }

    /// The failed assertion's error, reported at `caller`, with the screen saved when a
    /// test is running.
    /// `retried` is how long a retrying assertion retried and its timeout.
    pub(crate) fn failure(
        &self,
        caller: &'static Location<'static>,
        miss: Miss,
        session: Option<crate::artifacts::SessionFiles>,
        retried: Option<(std::time::Duration, std::time::Duration)>,
    ) -> Error {
        let Miss { expected, found } = miss;
        let (elapsed_ms, timeout_ms) = retried.map_or((0, 0), |(elapsed, timeout)| {
            (elapsed.as_millis(), timeout.as_millis())
        });
        let artifacts = crate::artifacts::write(
            &self.snapshot,
            &format!("expected {expected}"),
            elapsed_ms,
            timeout_ms,
            session.as_ref(),
        );
        // Nothing found for a pattern: the row most like it, as a failed wait says.
        let closest = match (&self.pattern, self.all.is_empty()) {
            (Some(pattern), true) => crate::wait::closest_line(self.snapshot.rows(), pattern),
            _ => None,
        };
        let error = Error::Assertion(Box::new(AssertionError {
            caller,
            expected,
            found,
            screen: self.marked_screen(),
            cells: self.spans.iter().map(|s| (s.row, s.cols.0, s.cols.1)).collect(),
            artifacts: artifacts.clone(),
            retried,
            closest,
        }));
        #[cfg(feature = "render")]
        if let Some(dir) = &artifacts {
            crate::artifacts::write_report(dir, &error, &self.snapshot, session.as_ref());
        }
        error
    }

    /// `Ok(self)`, or the failure `miss` describes, reported at the caller.
    #[track_caller]
    fn verdict(&self, miss: Option<Miss>) -> Result<&Locator> {
        match miss {
            Some(miss) => Err(self.failure(Location::caller(), miss, None, None)),
            None => Ok(self),
        }
    }

    /// What [`assert_visible`](Self::assert_visible) finds wrong, if anything.
    pub(crate) fn visible_miss(&self) -> Option<Miss> {
        self.spans.is_empty().then(|| {
            Miss::new(
                format!("{} on the screen", self.described()),
                self.nothing_found(),
            )
        })
    }

    /// What [`assert_count`](Self::assert_count) finds wrong, if anything.
    pub(crate) fn count_miss(&self, expected: usize) -> Option<Miss> {
        (self.count() != expected).then(|| {
            Miss::new(
                format!("{expected} of {}", self.described()),
                self.count().to_string(),
            )
        })
    }

    /// What [`assert_text`](Self::assert_text) finds wrong with `re`, if anything.
    pub(crate) fn text_miss(&self, re: &regex::Regex) -> Option<Miss> {
        let text = self.text();
        let found = match self.spans.is_empty() {
            true => self.nothing_found(),
            false => format!("{text:?}"),
        };
        (self.spans.is_empty() || !re.is_match(&text))
            .then(|| Miss::new(format!("{} to read /{re}/", self.described()), found))
    }

    /// What [`assert_style`](Self::assert_style) finds wrong, if anything.
    pub(crate) fn style_miss(&self, expected: &StyleMatch) -> Option<Miss> {
        let wanted = format!("{} {expected}", self.described());
        if self.spans.is_empty() {
            return Some(Miss::new(wanted, self.nothing_found()));
        }
        for span in &self.spans {
            for (col, style) in (span.cols.0..).zip(span_styles(&self.snapshot, *span)) {
                if let Some(why) = expected.mismatch(&style) {
                    return Some(Miss::new(
                        wanted,
                        format!("row {} column {col} is {style} ({why})", span.row),
                    ));
                }
            }
        }
        None
    }

    /// Asserts that something was located.
    #[track_caller]
    pub fn assert_visible(&self) -> Result<&Locator> {
        self.verdict(self.visible_miss())
    }

    /// Asserts how many matches were located.
    #[track_caller]
    pub fn assert_count(&self, expected: usize) -> Result<&Locator> {
        self.verdict(self.count_miss(expected))
    }

    /// Asserts that the located text matches `pattern`.
    #[track_caller]
    pub fn assert_text(&self, pattern: &str) -> Result<&Locator> {
        let re = compile(pattern)?;
        self.verdict(self.text_miss(&re))
    }

    /// Asserts that every located cell of every match has the style asked for.
    #[track_caller]
    pub fn assert_style(&self, expected: &StyleMatch) -> Result<&Locator> {
        self.verdict(self.style_miss(expected))
    }

    /// The screen with `^` under every located cell.
    fn marked_screen(&self) -> String {
        let marks: Vec<(u16, u16, u16)> = self.spans.iter().map(|s| (s.row, s.cols.0, s.cols.1)).collect();
        self.snapshot.numbered_rows(&marks).0
    }
}

/// What a locator assertion found wrong: what it expected and what it found, in words.
#[derive(Clone, Debug)]
pub(crate) struct Miss {
    pub(crate) expected: String,
    pub(crate) found: String,
}

impl Miss {
    fn new(expected: impl Into<String>, found: impl Into<String>) -> Miss {
        Miss {
            expected: expected.into(),
            found: found.into(),
        }
    }
}
