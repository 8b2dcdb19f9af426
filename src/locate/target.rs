//! Mouse targets placed as locators place their matches: a `/REGEX/` target's scopes
//! (`inside /Help/`, `below /Name:/`, `in-rows 3-9`, `nth 1`) are a locator's scopes,
//! applied on the screen the action is sent to, so a click lands on what the same
//! locator would assert.

use crate::keys::mouse::{ScreenText, TargetScope};
use crate::snapshot::Snapshot;

use super::Locator;

/// A screen that places scoped mouse targets (the session sends actions through it).
pub(crate) struct Placing<'a>(pub(crate) &'a Snapshot);

impl ScreenText for Placing<'_> {
    fn size(&self) -> (u16, u16) {
        self.0.size()
    }

    fn first_match(&self, re: &regex::Regex) -> Option<(u16, u16, String)> {
        ScreenText::first_match(self.0, re)
    }

    fn first_scoped_match(
        &self,
        re: &regex::Regex,
        scopes: &[TargetScope],
    ) -> std::result::Result<(u16, u16, String), String> {
        let located = |re: &regex::Regex| Locator::of_matches(self.0, re, format!("/{re}/"));
        let mut locator = located(re);
        for scope in scopes {
            locator = match scope {
                TargetScope::Rows(first, last) => locator.in_rows(*first..=*last),
                TargetScope::Cols(first, last) => locator.in_cols(*first..=*last),
                TargetScope::Relative(relation, anchor) => locator.relative_to(*relation, &located(anchor)),
                TargetScope::Nth(n) => locator.nth(*n),
            };
        }
        match locator.matches().into_iter().next() {
            Some(found) => Ok((found.col, found.row, found.text)),
            None => Err(locator.nothing_found()),
        }
    }
}
