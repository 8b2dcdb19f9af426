//! The `masks` target: what a program prints, with parts that change from run to run (a
//! pid, a counter, a temporary folder's number) grown or shrunk, masks to the same golden
//! text — a mask stands for text of any length — and the masked text shows nothing the mask
//! matched; the fixed-width mask changes no cell but those it masks.
//!
//! An input is a template: the program's text with [`HOLE`] where a run of digits goes.
//! The check fills every hole twice with runs of different lengths, draws both on a
//! terminal wide enough that no row wraps, and masks both with `\d+`.

use tuipilot::Terminal;
use tuipilot::snapshot::{MASK_PLACEHOLDER, mask_rows};

use super::Rng;

/// Where a run of digits goes in a template.
pub(crate) const HOLE: char = '\u{1}';

/// Wide enough that no generated row wraps (a row holds at most 12 parts of at most 12
/// columns and 12 holes of at most 12 digits).
const COLS: u16 = 400;

/// Enough rows for every generated line (at most six) and the cursor's after them.
const ROWS: u16 = 8;

/// What a program prints around the parts that change: words, spaces, paths, wide and
/// combining characters, colours and styles (escape sequences whose digits are not text),
/// and the placeholder itself. Nothing that moves the cursor back (a tab, a backspace, a
/// carriage return alone): text after those legitimately depends on the lengths before.
const TEMPLATE_PARTS: &[&str] = &[
    "pid ",
    "/tmp/pytest-",
    "/app",
    " ",
    "   ",
    "ok",
    "[",
    "]",
    "masked",
    MASK_PLACEHOLDER,
    "漢字",
    "e\u{301}",
    "🙂",
    "\x1b[1;31m",
    "\x1b[0m",
    "\x1b[38;5;208m",
    "\x1b[48;2;10;20;30m",
    "-",
    ":",
    "v",
    "\r\n",
];

pub(crate) fn masks_input(rng: &mut Rng) -> Vec<u8> {
    let mut text = String::new();
    for _ in 0..1 + rng.below(6) {
        for _ in 0..rng.below(12) {
            if rng.chance(40) {
                text.push(HOLE);
            } else {
                let part = *rng.pick(TEMPLATE_PARTS);
                if part != "\r\n" {
                    text.push_str(part);
                }
            }
        }
        text.push_str("\r\n");
    }
    text.into_bytes()
}

/// The template with each hole filled by a run of digits `len` long.
fn fill(template: &str, rng: &mut Rng) -> String {
    template
        .chars()
        .map(|c| match c {
            HOLE => "9".repeat(1 + rng.below(12)),
            c => c.to_string(),
        })
        .collect()
}

pub(crate) fn check_masks(rng: &mut Rng, input: &[u8]) -> Result<(), String> {
    let template = String::from_utf8_lossy(input);
    let digits = regex::Regex::new(r"\d+").map_err(|e| e.to_string())?;
    let screens: Vec<tuipilot::Snapshot> = (0..2)
        .map(|_| {
            let mut terminal = Terminal::new(COLS, ROWS).map_err(|e| e.to_string())?;
            terminal.process(fill(&template, rng).as_bytes());
            Ok(terminal.snapshot())
        })
        .collect::<Result<_, String>>()?;
    let masked: Vec<String> = screens
        .iter()
        .map(|s| mask_rows(&s.text(), std::slice::from_ref(&digits)))
        .collect();
    if masked[0] != masked[1] {
        return Err(format!(
            "runs of different lengths mask to different texts:\n{:?}\n{:?}",
            masked[0], masked[1]
        ));
    }
    if masked[0].chars().any(|c| c.is_ascii_digit()) {
        return Err(format!("a digit is left after masking \\d+: {:?}", masked[0]));
    }
    // The fixed-width mask (images, columns) changes only the cells it masks: nothing
    // after a mask moves.
    for screen in &screens {
        let fixed = screen.masked_regexes(std::slice::from_ref(&digits));
        for row in 0..ROWS {
            for col in 0..COLS {
                let (before, after) = (screen.cell(row, col), fixed.cell(row, col));
                let masked = after.is_some_and(|c| c.text() == "*");
                if before != after && !masked {
                    return Err(format!(
                        "the fixed-width mask moved the cell at row {row}, col {col}"
                    ));
                }
            }
        }
    }
    Ok(())
}
