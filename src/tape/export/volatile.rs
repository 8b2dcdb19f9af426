//! What drifted in a session: the cells that changed while no input was sent — a clock's
//! seconds, a meter, a spinner, a random hint — found by comparing the screens the log
//! kept with no input between them (and the last with the screen when the export is
//! made). An export asserts what the session established, not what drifted: a drifted
//! cell matches anything in an `Expect`, and is masked in the last snapshot by a mask
//! that stands for any length — anchored on the steady text around it, and taking the
//! fill beside it (spaces, `─`), so a header drawn around a text of another length still
//! matches.

use std::collections::BTreeMap;

use crate::operation::{LoggedOperation, Operation, StartSpec};

/// Drifted cells: for each row (0-based), the character ranges `[start, end)` that
/// changed while no input was sent.
pub(super) type Drifted = BTreeMap<usize, Vec<(usize, usize)>>;

/// Each drift seen, with the row it was seen in: a row's drift belongs to that row, not
/// to whatever another screen shows at the same place (htop's help screen over the
/// meters that drifted on its main screen).
#[derive(Default)]
pub(super) struct DriftLog {
    seen: BTreeMap<usize, Vec<SeenDrift>>,
}

/// A row as it was seen (its characters) and its ranges that drifted.
type SeenDrift = (Vec<char>, Vec<(usize, usize)>);

impl DriftLog {
    /// The drifted ranges of `row`, the row at `index` of some screen: those seen in a row
    /// there that is this one but for what drifted — the same text before the first range
    /// and after the last.
    pub(super) fn spans_for(&self, index: usize, row: &str) -> Option<Vec<(usize, usize)>> {
        let target: Vec<char> = row.trim_end().chars().collect();
        // The row seen drifting itself fits; another fits by the steady text around what
        // drifted, when there is any (a row that drifted whole says nothing of another).
        let fits = |observed: &[char], spans: &[(usize, usize)]| {
            let (Some(&(first, _)), Some(&(_, end))) = (spans.first(), spans.last()) else {
                return false;
            };
            // The steady text before and after, without the fill next to what drifted
            // (a bar's `|` that grows with its value).
            let (head, from) = over_fill(observed, (first, end));
            let tail = observed.len() - from;
            observed == target.as_slice()
                || (head + tail > 0
                    && target.len() >= head.max(tail)
                    && observed[..head] == target[..head]
                    && observed[from..] == target[target.len() - tail..])
        };
        // Ranges are where they were in the row seen; in a row of another length (a
        // number with one digit more), what drifted is what lies between the same steady
        // text: from the first range's start to as far from the end as the last one's,
        // widened to whole words.
        let placed = |observed: &[char], spans: &[(usize, usize)]| -> Vec<(usize, usize)> {
            if observed.len() == target.len() {
                return spans.to_vec();
            }
            let (Some(&(first, _)), Some(&(_, end))) = (spans.first(), spans.last()) else {
                return Vec::new();
            };
            let (mut from, mut to) = (
                first,
                target.len().saturating_sub(observed.len().saturating_sub(end)),
            );
            // Only inside a word: a range that starts or ends at fill ends there.
            let word_at = |at: usize| target.get(at).copied().is_some_and(in_word);
            while from > 0 && word_at(from - 1) && word_at(from) {
                from -= 1;
            }
            while to > 0 && word_at(to) && word_at(to - 1) {
                to += 1;
            }
            (from < to).then_some((from, to)).into_iter().collect()
        };
        let spans: Vec<(usize, usize)> = self
            .seen
            .get(&index)?
            .iter()
            .filter(|(observed, spans)| fits(observed, spans))
            .flat_map(|(observed, spans)| placed(observed, spans))
            .collect();
        (!spans.is_empty()).then(|| merged(spans))
    }

    /// The drifted cells of `screen`, row by row ([`spans_for`](Self::spans_for)).
    pub(super) fn on(&self, screen: &str) -> Drifted {
        screen
            .split('\n')
            .enumerate()
            .filter_map(|(index, row)| Some((index, self.spans_for(index, row)?)))
            .collect()
    }

    /// Adds what changed from `before` to `after`, each row's ranges with the row as it
    /// was before and after.
    fn add(&mut self, before: &str, after: &str) {
        let mut drifted = Drifted::new();
        add_changes(&mut drifted, before, after);
        let (old, new): (Vec<&str>, Vec<&str>) = (before.split('\n').collect(), after.split('\n').collect());
        let row = |rows: &[&str], index: usize| -> Vec<char> {
            rows.get(index)
                .map_or_else(Vec::new, |row| row.trim_end().chars().collect())
        };
        for (index, spans) in drifted {
            let seen = self.seen.entry(index).or_default();
            seen.push((row(&old, index), spans.clone()));
            seen.push((row(&new, index), spans));
        }
    }
}

/// Characters a frame, a padded field or a bar is filled with: taken into a drifted range
/// beside them, since a text of another length moves them and a bar of another value
/// ends elsewhere.
fn is_fill(c: char) -> bool {
    matches!(
        c,
        ' ' | '─' | '━' | '═' | '-' | '.' | '·' | '_' | '|' | '#' | '=' | '*'
    ) || ('\u{2580}'..='\u{259f}').contains(&c)
}

/// The range `[from, to)` of `chars` (cut to its length) widened over the fill beside it.
fn over_fill(chars: &[char], (from, to): (usize, usize)) -> (usize, usize) {
    let (mut from, mut to) = (from.min(chars.len()), to.min(chars.len()));
    while from > 0 && is_fill(chars[from - 1]) {
        from -= 1;
    }
    while to < chars.len() && is_fill(chars[to]) {
        to += 1;
    }
    (from, to)
}

/// Whether `c` belongs to a word or a number (`12.5%`, `3,200`, `12:30`): a changed
/// character makes the whole of it drifted.
fn in_word(c: char) -> bool {
    c.is_alphanumeric() || ".,:%".contains(c)
}

/// How many steady characters on each side anchor a drifted range's mask.
const ANCHOR: usize = 3;

/// The cells that changed between screens the log kept with no input between them (from
/// the second after an input on), and between the last of them and `now` (the screen when
/// the export is made).
pub(super) fn drifted_cells(start: &StartSpec, log: &[LoggedOperation], now: Option<&str>) -> DriftLog {
    let mut drifted = DriftLog::default();
    let (mut cols, mut rows) = (start.cols, start.rows);
    // The last screen seen with no input since, and how many were seen since the input
    // (the program's start counts as one).
    let mut steady: Option<String> = None;
    let mut seen_since_input = 0;
    // The masks of the capture that kept the steady screen (`capture --mask`): its text
    // holds their placeholder, so the screens it is compared with are masked alike.
    let mut steady_masks: Vec<regex::Regex> = Vec::new();
    let compared = |before: &str, after: &str, masks: &[regex::Regex]| {
        (
            crate::snapshot::mask_rows(before, masks),
            crate::snapshot::mask_rows(after, masks),
        )
    };
    for entry in log {
        match &entry.operation {
            Operation::Resize { cols: c, rows: r } => {
                (cols, rows) = (*c, *r);
                (steady, seen_since_input) = (None, 0);
                continue;
            }
            // Input: what follows is the program's answer, not drift.
            Operation::Send { .. } | Operation::Exit { .. } => (steady, seen_since_input) = (None, 0),
            _ => {}
        }
        let Some(screen) = super::walk::shown_text(entry, cols, rows) else {
            continue;
        };
        // The first screen after an input may be caught before the reaction's end (a
        // debounced redraw): what changes after it is the reaction. What changes after a
        // later one is drift.
        let masks: Vec<regex::Regex> = match &entry.operation {
            Operation::Capture { mask, .. } => {
                mask.iter().filter_map(|m| regex::Regex::new(m).ok()).collect()
            }
            _ => Vec::new(),
        };
        if let (Some(before), true) = (&steady, seen_since_input >= 2) {
            let both: Vec<regex::Regex> = steady_masks.iter().chain(&masks).cloned().collect();
            let (before, after) = compared(before, &screen, &both);
            drifted.add(&before, &after);
        }
        steady = Some(screen);
        steady_masks = masks;
        seen_since_input += 1;
    }
    if let (Some(before), Some(now)) = (&steady, now) {
        let (before, now) = compared(before, now, &steady_masks);
        drifted.add(&before, &now);
    }
    drifted
}

/// Adds to `drifted` the character ranges of each row that differ between two screens: cell
/// by cell where the row kept its width, else the part between the text the two share at
/// its start and at its end (a number that grew by a digit moves what follows it).
fn add_changes(drifted: &mut Drifted, before: &str, after: &str) {
    let before: Vec<&str> = before.split('\n').collect();
    for (index, row) in after.split('\n').enumerate() {
        let old: Vec<char> = before
            .get(index)
            .copied()
            .unwrap_or("")
            .trim_end()
            .chars()
            .collect();
        let new: Vec<char> = row.trim_end().chars().collect();
        let mut spans = Vec::new();
        if old.len() == new.len() {
            let mut open: Option<usize> = None;
            for at in 0..new.len() {
                match (old[at] != new[at], open) {
                    (true, None) => open = Some(at),
                    (false, Some(from)) => {
                        spans.push((from, at));
                        open = None;
                    }
                    _ => {}
                }
            }
            if let Some(from) = open {
                spans.push((from, new.len()));
            }
        } else {
            let shared = old.len().min(new.len());
            let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
            let suffix = old
                .iter()
                .rev()
                .zip(new.iter().rev())
                .take(shared - prefix)
                .take_while(|(a, b)| a == b)
                .count();
            spans.push((prefix, (new.len() - suffix).max(prefix)));
        }
        if !spans.is_empty() {
            // A changed digit is a changed number: the whole word it is in drifted.
            let word = |at: usize| new.get(at).copied().is_some_and(in_word);
            for (from, to) in &mut spans {
                while *from > 0 && word(*from - 1) {
                    *from -= 1;
                }
                while word(*to) {
                    *to += 1;
                }
            }
            // A row that drifted has every number in it drift (a load's three figures, a
            // count beside the one seen changing): seen once, the others may hold still.
            let mut at = 0;
            while at < new.len() {
                if new[at].is_ascii_digit() {
                    let from = at;
                    while word(at) {
                        at += 1;
                    }
                    spans.push((from, at));
                } else {
                    at += 1;
                }
            }
            let row_spans = drifted.entry(index).or_default();
            row_spans.extend(spans);
            *row_spans = merged(std::mem::take(row_spans));
        }
    }
}

/// Ranges sorted, and joined where fewer than [`ANCHOR`] steady characters lie between
/// them (too few to anchor a mask on: `12.0%` and `23.1%` in one meter).
fn merged(mut spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    spans.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (a, b) in spans {
        match out.last_mut() {
            Some((_, end)) if a < *end + ANCHOR => *end = (*end).max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// A mask of the obvious volatile pattern `pattern` (a path, a clock) that takes the fill
/// after it too: a header's `─` after a path of another length.
pub(super) fn with_fill(pattern: &str) -> String {
    format!("(?:{pattern})[{TRAILING_FILL}]*")
}

/// The fill a volatile text or a place takes after it: spaces and a header's rules.
pub(super) const TRAILING_FILL: &str = " ─━═";

/// Masks for the drifted cells of `screen`: each drifted range, widened over the fill
/// beside it, as a regex that matches whatever stands there between the steady text
/// around it (up to [`ANCHOR`] characters each side, up to the next fill). A row that drifted whole has no
/// steady text to anchor on and gets none (its text is not asserted either way: see
/// [`steady_pattern`]).
pub(super) fn span_masks(screen: &str, drifted: &Drifted, whole: &[(u16, u16)]) -> Vec<String> {
    let mut masks = Vec::new();
    let rows: Vec<&str> = screen.split('\n').collect();
    for (index, spans) in drifted {
        let Some(row) = rows.get(*index) else {
            continue;
        };
        if in_spans(*index, whole) {
            continue;
        }
        let chars: Vec<char> = row.chars().collect();
        for &(from, to) in spans {
            let (from, to) = over_fill(&chars, (from, to));
            // The steady text beside it, up to the next fill: `┐` of `┐ steady`.
            let before_len = chars[..from]
                .iter()
                .rev()
                .take_while(|c| !is_fill(**c))
                .take(ANCHOR)
                .count();
            let after_len = chars[to..]
                .iter()
                .take_while(|c| !is_fill(**c))
                .take(ANCHOR)
                .count();
            if before_len == 0 && after_len == 0 {
                continue;
            }
            let others: Vec<&str> = rows
                .iter()
                .enumerate()
                .filter(|(at, _)| at != index)
                .map(|(_, row)| *row)
                .collect();
            if let Some(mask) = anchored_mask(row, &chars, (from, to), (before_len, after_len), &others)
                && !masks.contains(&mask)
            {
                masks.push(mask);
            }
        }
    }
    masks
}

/// The mask of the drifted range `[from, to)` of `row` (its `chars`) between the steady
/// text around it, `anchor` characters before and after to start with. Where that text
/// is not unique in the row (`│` of `│  │  88  │  │`), the mask's matches would cover
/// other cells and miss the range, and where it is found in `others` (the screen's
/// other rows: a mask holds for every row, and `^.*?0\.` of one meter masks another
/// meter's row elsewhere in another run) it masks what it was not made for: the anchors
/// grow, the text before first (fill included, up to the row's start), until a match
/// covers the range and no other row matches — else until a match covers the range.
/// `None` where even the whole row around it does not tell it apart.
fn anchored_mask(
    row: &str,
    chars: &[char],
    (from, to): (usize, usize),
    anchor: (usize, usize),
    others: &[&str],
) -> Option<String> {
    let byte = |at: usize| chars[..at].iter().map(|c| c.len_utf8()).sum::<usize>();
    let (start, end) = (byte(from), byte(to));
    let mask_of = |before: usize, after: usize| {
        let text = |range: &[char]| regex::escape(&range.iter().collect::<String>());
        let head = match before {
            0 => String::new(),
            n if n == from => format!("^{}", text(&chars[..from])),
            n => text(&chars[from - n..from]),
        };
        let tail = match after {
            0 => String::new(),
            n if to + n == chars.len() => format!("{}$", text(&chars[to..])),
            n => text(&chars[to..to + n]),
        };
        match (head.is_empty(), tail.is_empty()) {
            (false, true) => format!("{head}.*$"),
            (true, false) => format!("^.*?{tail}"),
            _ => format!("{head}.*?{tail}"),
        }
    };
    // An anchor with a digit in it is a number of a row that drifted, which drifts too
    // (seen still, it may not be in another run): anchors without one come first.
    let steady = |(b, a): (usize, usize)| {
        !chars[from - b..from]
            .iter()
            .chain(&chars[to..to + a])
            .any(char::is_ascii_digit)
    };
    // The anchors grow, the text before first; then, for an anchor without a digit,
    // the text after alone. The first mask that covers the range, is steady and matches
    // no other row is taken; failing that, the first that covers it and is steady, then
    // the first alone, then the first.
    let (before, after) = anchor;
    let tries = (before..=from)
        .map(|b| (b, after))
        .chain((after..=chars.len() - to).map(|a| (from, a)))
        .chain((1..=chars.len() - to).map(|a| (0, a)));
    let mut fallbacks: [Option<String>; 3] = Default::default();
    for (b, a) in tries {
        let mask = mask_of(b, a);
        let Ok(re) = regex::Regex::new(&mask) else {
            continue;
        };
        if !re.find_iter(row).any(|m| m.start() <= start && m.end() >= end) {
            continue;
        }
        let alone = !others.iter().any(|other| re.is_match(other));
        let rank = match (steady((b, a)), alone) {
            (true, true) => return Some(mask),
            (true, false) => 0,
            (false, true) => 1,
            (false, false) => 2,
        };
        fallbacks[rank].get_or_insert(mask);
    }
    fallbacks.into_iter().flatten().next()
}

/// Whether row `index` is in one of `spans` (first and last, inclusive).
fn in_spans(index: usize, spans: &[(u16, u16)]) -> bool {
    spans
        .iter()
        .any(|&(first, last)| (usize::from(first)..=usize::from(last)).contains(&index))
}

/// Whether `row` shows a process of this machine: a number in it is the pid of a live
/// process whose name it shows too (a row of htop's, top's or ps's list). A replay runs
/// among other processes — its own, with new pids, sorted in among them — so what such a
/// row shows is the machine's, not the session's, and is not asserted.
pub(super) fn shows_process(row: &str) -> bool {
    row.split_whitespace()
        .filter(|word| word.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|word| word.parse::<i32>().ok().filter(|pid| *pid > 0))
        .filter_map(crate::readiness::process_name)
        .any(|name| row.contains(&name))
}

/// The rows of a process list in `screen` ([`shows_process`]): from the first row that
/// shows a process to the last, and on below it over rows that start with a number as
/// the list's do (a process that ended since, the replay's longer list).
fn process_rows(rows: &[&str]) -> std::ops::Range<usize> {
    let Some(first) = rows.iter().position(|row| shows_process(row)) else {
        return 0..0;
    };
    let last = rows.iter().rposition(|row| shows_process(row)).unwrap_or(first);
    let starts_with_number = |row: &&&str| {
        row.split_whitespace()
            .next()
            .is_some_and(|word| word.bytes().all(|b| b.is_ascii_digit()))
    };
    let more = rows[last + 1..].iter().take_while(starts_with_number).count();
    first..last + 1 + more
}

/// The rows of `screen` to mask whole, as spans: those whose drifted text is half or more
/// of what they show (a process list, a random hint: nothing steady to anchor a mask on),
/// and the rows of a process list ([`shows_process`]), drifted or not.
pub(super) fn whole_rows(screen: &str, drifted: &Drifted) -> Vec<(u16, u16)> {
    let rows: Vec<&str> = screen.split('\n').collect();
    let mut masked: std::collections::BTreeSet<usize> = process_rows(&rows).collect();
    for (index, spans) in drifted {
        let Some(row) = rows.get(*index) else {
            continue;
        };
        let chars: Vec<char> = row.chars().collect();
        let shown = chars.iter().filter(|c| !c.is_whitespace()).count();
        let changed: usize = spans
            .iter()
            .map(|&(from, to)| {
                chars[from.min(chars.len())..to.min(chars.len())]
                    .iter()
                    .filter(|c| !c.is_whitespace())
                    .count()
            })
            .sum();
        // A row that went blank drifted whole too.
        let whole_row = match shown {
            0 => spans.iter().any(|(from, to)| from < to),
            _ => changed * 2 >= shown,
        };
        if whole_row {
            masked.insert(*index);
        }
    }
    let mut whole: Vec<(u16, u16)> = Vec::new();
    for index in masked {
        push_row(&mut whole, index);
    }
    whole
}

/// Adds row `index` to `spans`, joining it to the last when they touch.
fn push_row(spans: &mut Vec<(u16, u16)>, index: usize) {
    let index = u16::try_from(index).unwrap_or(u16::MAX);
    match spans.last_mut() {
        Some((_, last)) if *last + 1 == index => *last = index,
        _ => spans.push((index, index)),
    }
}

/// A regex matching `row` with its drifted ranges (`spans`, in characters), its
/// obviously volatile parts and the matches of `places` (where the replay runs) matching
/// anything: what an `Expect` asserts of a row.
pub(super) fn steady_pattern(
    row: &str,
    spans: Option<&Vec<(usize, usize)>>,
    places: &[regex::Regex],
) -> String {
    // Character ranges as the byte ranges the pattern is cut at.
    let offsets: Vec<usize> = row
        .char_indices()
        .map(|(at, _)| at)
        .chain(std::iter::once(row.len()))
        .collect();
    let byte = |at: usize| offsets.get(at).copied().unwrap_or(row.len());
    let spans = spans
        .into_iter()
        .flatten()
        .map(|&(from, to)| (byte(from), byte(to)))
        .filter(|(from, to)| from < to)
        .collect();
    super::walk::row_pattern_with(row, spans, places)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_meter_that_drifted_is_masked_between_its_steady_neighbours_with_its_fill() {
        let mut drifted = Drifted::new();
        add_changes(&mut drifted, "CPU[||    12.0%]  up", "CPU[||||| 23.1%]  up");
        let masks = span_masks("CPU[||||| 23.1%]  up", &drifted, &[]);
        let re = regex::Regex::new(&masks[0]).unwrap();
        let masked = |row: &str| re.replace(row, "#").into_owned();
        for row in ["CPU[|  5.0%]  up", "CPU[||||||||||100.0%]  up"] {
            assert_eq!(masked(row), masked("CPU[||||| 23.1%]  up"), "{masks:?} on {row}");
        }
        assert_eq!(masked("CPU[|  5.0%]  up"), "C#  up", "{masks:?}");
    }

    #[test]
    fn an_expect_matches_any_text_where_the_row_drifted_and_the_same_text_elsewhere() {
        let mut drifted = Drifted::new();
        add_changes(&mut drifted, "Load: 0.5 ok", "Load: 0.7 ok");
        let pattern = steady_pattern("Load: 0.7 ok", drifted.get(&0), &[]);
        let re = regex::Regex::new(&pattern).unwrap();
        assert!(
            re.is_match("Load: 0.9 ok") && re.is_match("Load: 12.25 ok"),
            "{pattern}"
        );
        assert!(!re.is_match("Load: 0.9 bad"), "{pattern}");
    }

    #[test]
    fn a_counter_between_borders_drawn_alike_is_masked_where_it_is() {
        // A gauge inside a box: `│` stands on both sides of the number, twice.
        let row = |n: &str| format!("   │  │        {n}        │  │");
        let mut drifted = Drifted::new();
        add_changes(&mut drifted, &row("88"), &row("86"));
        let masks = span_masks(&row("86"), &drifted, &[]);
        let regexes: Vec<regex::Regex> = masks.iter().map(|m| regex::Regex::new(m).unwrap()).collect();
        let masked = |text: &str| crate::snapshot::mask_rows(text, &regexes);
        assert!(
            !masked(&row("86")).contains("86"),
            "{masks:?}: {}",
            masked(&row("86"))
        );
        assert_eq!(masked(&row("9")), masked(&row("100")), "{masks:?}");
    }

    #[test]
    fn a_path_mask_takes_the_frame_fill_after_it() {
        let re = regex::Regex::new(&with_fill(r"/tmp/[^\s'\x22]+")).unwrap();
        let short = re.replace("┌─ /tmp/ab ─────────┐", "#");
        let long = re.replace("┌─ /tmp/abcdef ─────┐", "#");
        assert_eq!(short, long);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_row_showing_a_live_process_by_its_pid_and_name_is_a_process_lists() {
        let me = std::process::id();
        let name = crate::readiness::process_name(me as i32).expect("this process has a name");
        assert!(shows_process(&format!("  {me} root  S  0.0 {name} --test")));
        // Its pid without its name, its name without its pid, a pid inside a word: not.
        assert!(!shows_process(&format!("  {me} root  S  0.0 somethingelse")));
        assert!(!shows_process(&format!("  x{me} {name}")));
        let rows = [
            "Tasks: 3",
            &format!("{me} {name}"),
            "4000000 ended since",
            &format!("{me} {name}"),
            "4000001 ended too",
            "F1Help",
        ];
        assert_eq!(process_rows(&rows), 1..5);
        assert_eq!(process_rows(&["1. apples", "2. pears"]), 0..0);
    }

    #[test]
    fn a_rows_drift_applies_to_that_row_not_to_another_screens_row_at_its_place() {
        let mut log = DriftLog::default();
        log.add(
            "CPU[||   12.0%] up\nrandom hint one",
            "CPU[|||| 23.1%] up\nanother hint now",
        );
        // The same meter, another value: drifted where it drifted.
        assert!(log.spans_for(0, "CPU[|     5.0%] up").is_some());
        // Another screen's row 0 (a help text over the meters): nothing drifted there.
        assert_eq!(log.spans_for(0, "Released under the GPL"), None);
        // A row that drifted whole: the rows seen, not any row at its place.
        assert!(log.spans_for(1, "another hint now").is_some());
        assert!(log.spans_for(1, "random hint one").is_some());
        assert_eq!(log.spans_for(1, "Process state: R running"), None);
    }

    #[test]
    fn a_drifted_ranges_mask_matches_no_other_row_of_the_screen() {
        // Fails on the code before: row 1's mask, anchored on the row's start and the
        // value after its bar (`^.*?0\.`), matched row 0 too, and masked it differently
        // in a run where row 0's value was another.
        let before = "    0[||     0.7%] Tasks: 9\n    1[|      0.7%] Load";
        let after = "    0[|||    0.7%] Tasks: 9\n    1[       0.0%] Load";
        let mut drifted = Drifted::new();
        add_changes(&mut drifted, before, after);
        let masks = span_masks(after, &drifted, &[]);
        assert!(!masks.is_empty());
        for mask in &masks {
            let re = regex::Regex::new(mask).unwrap();
            let rows = after.split('\n').filter(|row| re.is_match(row)).count();
            assert_eq!(rows, 1, "{mask} matches {rows} rows of {after:?}");
        }
    }

    #[test]
    fn a_number_that_drifted_is_drifted_whole_in_a_row_where_it_has_another_length() {
        // Fails on the code before: the ranges seen in `reading 12345678 now` were applied
        // as they were to `reading 516705775 now`, and left its last digit steady.
        let mut log = DriftLog::default();
        log.add("reading 87654321 now", "reading 12345678 now");
        let row = "reading 516705775 now";
        let spans = log.spans_for(0, row).expect("the number drifted");
        assert_eq!(spans, vec![(8, 17)], "{row}");
    }

    #[test]
    fn a_meter_whose_value_held_still_is_masked_the_same_whatever_value_a_replay_shows() {
        // Fails on the code before: the value beside the bar that drifted held still while
        // the session watched, so the mask was anchored on it (`^.*?0\.0%`), and a run
        // showing another value masked the row otherwise.
        let before = "    0[||     0.0%] Tasks: 9\n    1[|      0.7%] Load";
        let after = "    0[|||    0.0%] Tasks: 9\n    1[       0.7%] Load";
        let mut drifted = Drifted::new();
        add_changes(&mut drifted, before, after);
        let masks: Vec<regex::Regex> = span_masks(after, &drifted, &[])
            .iter()
            .map(|m| regex::Regex::new(m).unwrap())
            .collect();
        let masked = |screen: &str| crate::snapshot::mask_rows(screen, &masks);
        let replay = "    0[|      1.3%] Tasks: 9\n    1[|||   12.5%] Load";
        assert_eq!(masked(replay), masked(after), "{masks:?}");
    }
}
