//! Where a mouse action points: a cell, or the text a regex finds, limited by scopes as
//! a locator's matches are (`/Save/ inside /Help/`); the grammar of targets, and what a
//! screen must answer to place one ([`ScreenText`]).

use std::fmt;

use super::invalid;
use crate::error::{Error, Result};

/// Where a mouse action points: a cell, or the text a regex finds on the screen.
#[derive(Clone, Debug)]
pub enum Target {
    /// A cell, 0-based `(col, row)`: the coordinates `find` and the cursor use.
    Cell(u16, u16),
    /// The centre of the first match of this regex on the screen when the action is sent,
    /// among the matches the scopes keep (none: anywhere).
    Text(regex::Regex, Vec<TargetScope>),
}

/// Where a place is relative to another match on the same screen: what a locator's
/// relative scope and a scoped mouse target say (the data; `locate` places it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// The rows under it.
    Below,
    /// The rows over it.
    Above,
    /// Its row, after it (its row only: not the rows under it).
    RightOf,
    /// Its row, before it (its row only).
    LeftOf,
    /// The inside of the box drawn around it (box-drawing or `+-|` borders), or of the
    /// box it is the title of (on the top border, at its edge or not, with or without
    /// spaces: `┌Help──┐`, `┌ Help ─┐`, `┌──Help─┐`).
    Inside,
}

/// The words of the mouse grammar for each [`Relation`].
pub const RELATIONS: &[(&str, Relation)] = &[
    ("below", Relation::Below),
    ("above", Relation::Above),
    ("right-of", Relation::RightOf),
    ("left-of", Relation::LeftOf),
    ("inside", Relation::Inside),
];

/// A limit on a `/REGEX/` target, as a locator's scopes limit its matches, applied in
/// order: `in-rows 3-9`, `in-cols 0-39`, `inside /Help/`, `below /Name:/`, `nth 2`.
#[derive(Clone, Debug)]
pub enum TargetScope {
    /// Only matches in these rows (first and last, 0-based, inclusive).
    Rows(u16, u16),
    /// Only matches in these columns (first and last, 0-based, inclusive).
    Cols(u16, u16),
    /// Only matches placed so relative to the first match of the regex (itself found
    /// anywhere on the screen).
    Relative(Relation, regex::Regex),
    /// Only the n-th (0-based) of the matches kept so far.
    Nth(usize),
}

impl fmt::Display for TargetScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetScope::Rows(a, b) => write!(f, "in-rows {a}-{b}"),
            TargetScope::Cols(a, b) => write!(f, "in-cols {a}-{b}"),
            TargetScope::Relative(relation, re) => {
                let word = RELATIONS
                    .iter()
                    .find(|(_, r)| r == relation)
                    .map_or("inside", |(w, _)| *w);
                write!(f, "{word} /{re}/")
            }
            TargetScope::Nth(n) => write!(f, "nth {n}"),
        }
    }
}

/// What a mouse target needs of the screen it points at: its size and where a pattern
/// first matches among those its scopes keep. Keys know nothing of snapshots; the
/// snapshot answers this without scopes (`impl ScreenText for Snapshot`), a locating
/// screen with them (`locate::Placing`).
pub trait ScreenText {
    /// Columns and rows.
    fn size(&self) -> (u16, u16);
    /// The first match of `re`: its column, its row and the text it matched.
    fn first_match(&self, re: &regex::Regex) -> Option<(u16, u16, String)>;
    /// The first match of `re` among those `scopes` keep; `Err` says what was found
    /// instead (outside the region, no box around the anchor). A screen that cannot place
    /// scopes says so.
    fn first_scoped_match(
        &self,
        re: &regex::Regex,
        scopes: &[TargetScope],
    ) -> std::result::Result<(u16, u16, String), String> {
        match scopes.is_empty() {
            true => self.first_match(re).ok_or_else(|| "nothing".to_string()),
            false => Err("a scoped target needs a session's screen to place it".into()),
        }
    }
}

impl Target {
    /// The cell this target points at on `screen`: a cell outside the screen, or a regex
    /// with no match, is a bad-input error that says so.
    pub fn resolve(&self, screen: &impl ScreenText) -> Result<(u16, u16)> {
        let (cols, rows) = screen.size();
        match self {
            Target::Cell(col, row) if *col < cols && *row < rows => Ok((*col, *row)),
            Target::Cell(col, row) => Err(Error::InvalidArgument {
                message: format!(
                    "mouse target {col},{row} is off the {cols}x{rows} screen: columns are 0 to {}, rows 0 to {}",
                    cols - 1,
                    rows - 1
                ),
            }),
            Target::Text(re, scopes) => {
                let (col, row, text) = screen.first_scoped_match(re, scopes).map_err(|found| {
                    let hint = "capture the screen to see its text, or give COL,ROW";
                    Error::InvalidArgument {
                        message: match scopes.is_empty() {
                            true => format!("mouse target /{re}/ matches nothing on the screen: {hint}"),
                            false => {
                                format!("mouse target {self} matches nothing there (found {found}): {hint}")
                            }
                        },
                    }
                })?;
                let line = text.lines().next().unwrap_or_default();
                let width = unicode_width::UnicodeWidthStr::width(line) as u16;
                Ok(((col + width.saturating_sub(1) / 2).min(cols - 1), row))
            }
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Cell(col, row) => write!(f, "{col},{row}"),
            Target::Text(re, scopes) => {
                write!(f, "/{re}/")?;
                scopes.iter().try_for_each(|scope| write!(f, " {scope}"))
            }
        }
    }
}

/// Splits a target off the front of `text`: `/re/` (a `\/` inside is a slash) or
/// `COL,ROW` (up to `..` or a space).
fn take_target<'a>(spec: &str, text: &'a str) -> Result<(Target, &'a str)> {
    if let Some(body) = text.strip_prefix('/') {
        let mut escaped = false;
        let end = body.char_indices().find_map(|(i, c)| match c {
            '\\' if !escaped => {
                escaped = true;
                None
            }
            '/' if !escaped => Some(i),
            _ => {
                escaped = false;
                None
            }
        });
        let end = end.ok_or_else(|| invalid(spec, "the regex target has no closing `/`"))?;
        let pattern = body[..end].replace("\\/", "/");
        let re = crate::error::compile_pattern(&pattern)?;
        return Ok((Target::Text(re, Vec::new()), &body[end + 1..]));
    }
    let end = text.find(['.', ' ']).unwrap_or(text.len());
    let (cell, rest) = text.split_at(end);
    let parsed = cell
        .split_once(',')
        .and_then(|(c, r)| Some((c.trim().parse().ok()?, r.trim().parse().ok()?)));
    match parsed {
        Some((col, row)) => Ok((Target::Cell(col, row), rest)),
        None => Err(invalid(
            spec,
            format!("`{cell}` is not a target: give COL,ROW (0-based, like `12,3`) or /REGEX/"),
        )),
    }
}

/// A span `A-B` of rows or columns (0-based, inclusive) off the front of `text`.
fn take_span<'a>(spec: &str, word: &str, text: &'a str) -> Result<((u16, u16), &'a str)> {
    let text = text.trim_start();
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    let (span, rest) = text.split_at(end);
    let parsed = span.split_once('-').and_then(|(a, b)| {
        let (a, b): (u16, u16) = (a.parse().ok()?, b.parse().ok()?);
        (a <= b).then_some((a, b))
    });
    match parsed {
        Some(span) => Ok((span, rest)),
        None => Err(invalid(
            spec,
            format!("`{word}` takes FIRST-LAST (0-based, inclusive, like `{word} 3-9`), not `{span}`"),
        )),
    }
}

/// The scopes after a `/REGEX/` target (`in-rows 3-9`, `inside /Help/`, `nth 1`…), up to
/// what is not one (a count, `..`, the end).
fn take_scopes<'a>(spec: &str, mut text: &'a str) -> Result<(Vec<TargetScope>, &'a str)> {
    let mut scopes = Vec::new();
    loop {
        let trimmed = text.trim_start();
        let end = trimmed.find(char::is_whitespace).unwrap_or(trimmed.len());
        let (word, rest) = trimmed.split_at(end);
        let scope = match word {
            "in-rows" | "in-cols" => {
                let ((a, b), rest) = take_span(spec, word, rest)?;
                text = rest;
                match word {
                    "in-rows" => TargetScope::Rows(a, b),
                    _ => TargetScope::Cols(a, b),
                }
            }
            "nth" => {
                let rest = rest.trim_start();
                let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                let n = rest[..end].parse().map_err(|_| {
                    invalid(
                        spec,
                        format!("`nth` takes a 0-based number, not `{}`", &rest[..end]),
                    )
                })?;
                text = &rest[end..];
                TargetScope::Nth(n)
            }
            _ => match RELATIONS.iter().find(|(name, _)| *name == word) {
                Some(&(_, relation)) => {
                    let (anchor, rest) = take_target(spec, rest.trim_start())?;
                    let Target::Text(re, _) = anchor else {
                        return Err(invalid(
                            spec,
                            format!("`{word}` takes the text it is relative to, as /REGEX/"),
                        ));
                    };
                    text = rest;
                    TargetScope::Relative(relation, re)
                }
                None => return Ok((scopes, text)),
            },
        };
        scopes.push(scope);
    }
}

/// A target with the scopes written after it (a cell takes none).
pub(super) fn take_scoped_target<'a>(spec: &str, text: &'a str) -> Result<(Target, &'a str)> {
    let (target, rest) = take_target(spec, text)?;
    match target {
        Target::Text(re, _) => {
            let (scopes, rest) = take_scopes(spec, rest)?;
            Ok((Target::Text(re, scopes), rest))
        }
        cell => Ok((cell, rest)),
    }
}
