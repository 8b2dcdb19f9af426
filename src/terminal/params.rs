//! Rewriting the parameters of sequences the gap layer passes on changed: SGR read for the
//! attributes vt100 drops and rewritten so it misreads none, and REP's count read without
//! overflow.

use crate::color::Color;
use crate::style::UnderlineStyle;

/// REP's count: its first parameter (default and 0 mean 1), saturating instead of
/// overflowing.
pub(super) fn repeat_param(params: &[u8]) -> u64 {
    let first = params
        .split(|&b| b == b';' || b == b':')
        .next()
        .unwrap_or_default();
    let n = first.iter().filter(|b| b.is_ascii_digit()).fold(0u64, |n, &d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    });
    n.max(1)
}

/// The SGR attributes vt100 drops, kept by the gap layer and carried into the cells they
/// are printed with (see `clusters`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct ExtraStyle {
    /// The underline's style when it is not a single line (vt100 keeps whether a cell is
    /// underlined; `None` here means a plain line).
    pub underline_style: UnderlineStyle,
    pub underline_color: Color,
    pub strikethrough: bool,
    pub hidden: bool,
    pub blink: bool,
    pub overline: bool,
}

impl ExtraStyle {
    /// Whether nothing beyond what vt100 keeps is in force.
    pub fn is_plain(&self) -> bool {
        *self == ExtraStyle::default()
    }
}

/// Reads an SGR parameter string into `extra` and returns the parameters vt100 should
/// see, or `None` when they need no change: the underline colour (58/59) removed, since
/// vt100 reads `58;5;n` as bold and more; `4:n` and `21` turned into plain `4` or `24`,
/// since vt100 reads `4:3` as underline and italic.
///
/// Nothing is allocated unless the parameters change (an SGR comes with every colour
/// change): until the first item that changes, the items kept are the text itself, and the
/// rewritten string starts as that prefix.
pub(super) fn sgr(params: &[u8], extra: &mut ExtraStyle) -> Option<String> {
    // Most SGRs are numbers and `;` alone, with nothing to rewrite: read as bytes.
    if params.is_ascii() && !params.contains(&b':') && plain_sgr(params, extra) {
        return None;
    }
    let text = std::str::from_utf8(params).ok()?;
    let mut rewritten: Option<Rewritten> = None;
    let mut items = text.split(';');
    // Where the current item starts in `text`.
    let mut start = 0usize;
    while let Some(item) = items.next() {
        let (code, sub) = match item.split_once(':') {
            Some((code, sub)) => (code, Some(sub)),
            None => (item, None),
        };
        // Extended colours take their arguments as separate items: keep 38/48 whole so
        // an argument that happens to be 58 is not mistaken for SGR 58.
        let span = match (code, sub) {
            ("38" | "48" | "58", None) => 1 + colour_args(items.clone().next().map(str::as_bytes)),
            _ => 1,
        }
        .min(1 + items.clone().count());
        // The item and its arguments, as they stand in `text`.
        let mut end = start + item.len();
        for _ in 1..span {
            end += 1 + items.next().map_or(0, str::len);
        }
        let whole = &text[start..end];
        let number = |s: &str| s.parse::<u16>().ok();
        // What vt100 gets of the item: itself, a replacement, or nothing.
        let mut given = Given::Same;
        match (code, sub) {
            ("4", Some(n)) => {
                let style = number(n)
                    .and_then(UnderlineStyle::from_sgr)
                    .unwrap_or(UnderlineStyle::Single);
                extra.underline_style = style;
                given = Given::Instead(if style == UnderlineStyle::None { "24" } else { "4" });
            }
            ("21", None) => {
                extra.underline_style = UnderlineStyle::Double;
                given = Given::Instead("4");
            }
            ("58", _) => {
                let args = match sub {
                    Some(sub) => sub,
                    // `58;5;n`: the arguments after `58;`.
                    None => whole.get(3..).unwrap_or_default(),
                };
                let separator = if sub.is_some() { ':' } else { ';' };
                extra.underline_color = extended_color(args.split(separator));
                given = Given::Nothing;
            }
            ("59", None) => {
                extra.underline_color = Color::Default;
                given = Given::Nothing;
            }
            (code, None) => attribute(code.as_bytes(), extra),
            _ => {}
        }
        if !matches!(given, Given::Same) && rewritten.is_none() {
            // The first change: what came before it is kept as it was.
            rewritten = Some(Rewritten {
                text: text[..start.saturating_sub(1)].to_string(),
                any: start > 0,
            });
        }
        if let Some(out) = &mut rewritten {
            match given {
                Given::Same => out.push(whole),
                Given::Instead(by) => out.push(by),
                Given::Nothing => {}
            }
        }
        start = end + 1;
    }
    // vt100 keeps a single underline itself; the style table only the other kinds.
    if extra.underline_style == UnderlineStyle::Single {
        extra.underline_style = UnderlineStyle::None;
    }
    rewritten.map(|out| out.text)
}

/// [`sgr`] for parameters of numbers and `;` alone: reads them into `extra` and says
/// whether they need no rewriting; `false` (what was read already applied) at the first
/// code that does (21, 58, 59), for [`sgr`] to read them all again, which applies the same
/// values once more and changes nothing else.
fn plain_sgr(params: &[u8], extra: &mut ExtraStyle) -> bool {
    let mut items = params.split(|&b| b == b';');
    while let Some(code) = items.next() {
        match code {
            b"21" | b"58" | b"59" => return false,
            // An extended colour's arguments are not codes of their own.
            b"38" | b"48" => {
                for _ in 0..colour_args(items.clone().next()) {
                    items.next();
                }
            }
            code => attribute(code, extra),
        }
    }
    if extra.underline_style == UnderlineStyle::Single {
        extra.underline_style = UnderlineStyle::None;
    }
    true
}

/// Applies an SGR code that only sets or clears what the gap layer keeps beside vt100
/// (a reset, the underline, blink, hidden, strikethrough, overline) to `extra`; any other
/// code changes nothing here.
fn attribute(code: &[u8], extra: &mut ExtraStyle) {
    match code {
        b"" | b"0" => *extra = ExtraStyle::default(),
        b"4" => extra.underline_style = UnderlineStyle::Single,
        b"24" => extra.underline_style = UnderlineStyle::None,
        b"5" | b"6" => extra.blink = true,
        b"25" => extra.blink = false,
        b"8" => extra.hidden = true,
        b"28" => extra.hidden = false,
        b"9" => extra.strikethrough = true,
        b"29" => extra.strikethrough = false,
        b"53" => extra.overline = true,
        b"55" => extra.overline = false,
        _ => {}
    }
}

/// How many items after `38`, `48` or `58` are its arguments, given the item after it:
/// two for `5;n`, four for `2;r;g;b`, none otherwise.
fn colour_args(next: Option<&[u8]>) -> usize {
    match next {
        Some(b"5") => 2,
        Some(b"2") => 4,
        _ => 0,
    }
}

/// What vt100 is given of one SGR item.
enum Given {
    /// The item as it came.
    Same,
    /// Another item in its place.
    Instead(&'static str),
    /// Nothing: the gap layer keeps what it said.
    Nothing,
}

/// SGR parameters being rewritten: the items kept, joined by `;`.
struct Rewritten {
    text: String,
    /// Whether an item (possibly empty) is in `text` already.
    any: bool,
}

impl Rewritten {
    /// Keeps `item` (which may be empty, as in `1;;2`).
    fn push(&mut self, item: &str) {
        if self.any {
            self.text.push(';');
        }
        self.text.push_str(item);
        self.any = true;
    }
}

/// Whether the background is a colour (not the default) after the SGR `params`, given
/// whether it was before — read as vt100 reads them, so the gap layer knows without asking
/// the parser (see `gaps::erase`).
pub(super) fn background_after(params: &[u8], mut coloured: bool) -> bool {
    // Read as bytes, without allocating: an SGR comes with every colour change.
    let mut items = params.split(|&b| b == b';');
    while let Some(item) = items.next() {
        let code = item.split(|&b| b == b':').next().unwrap_or_default();
        match code {
            b"" | b"0" | b"49" => coloured = false,
            b"48" => coloured = true,
            [b'4', b'0'..=b'7'] | [b'1', b'0', b'0'..=b'7'] => coloured = true,
            _ => {}
        }
        // An extended colour's arguments (`38;5;n`, `38;2;r;g;b`) are not codes of their own.
        if code.len() == item.len() && matches!(code, b"38" | b"48" | b"58") {
            for _ in 0..colour_args(items.clone().next()) {
                items.next();
            }
        }
    }
    coloured
}

/// The colour of `5;n` or `2;r;g;b` (also `2::r:g:b`, with a colour space id); the
/// default colour for anything else.
fn extended_color<'a>(args: impl Iterator<Item = &'a str>) -> Color {
    // At most six matter (`2`, a colour space id, r, g, b, and whether more follow).
    let mut first = [""; 6];
    let mut count = 0;
    for (slot, arg) in first.iter_mut().zip(args) {
        *slot = arg;
        count += 1;
    }
    let n = |s: &&str| s.parse::<u8>().ok();
    match &first[..count] {
        ["5", i, ..] => n(i).map_or(Color::Default, Color::Indexed),
        // `2;r;g;b`, or with a colour space id (empty or not) before the components.
        ["2", r, g, b] | ["2", _, r, g, b, ..] => match (n(r), n(g), n(b)) {
            (Some(r), Some(g), Some(b)) => Color::Rgb(r, g, b),
            _ => Color::Default,
        },
        _ => Color::Default,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rewriting as it was before it stopped allocating: two lists per SGR. Kept as
    /// the property's other side.
    fn sgr_with_lists(params: &[u8], extra: &mut ExtraStyle) -> Option<String> {
        let text = std::str::from_utf8(params).ok()?;
        let items: Vec<&str> = text.split(';').collect();
        let mut kept: Vec<&str> = Vec::with_capacity(items.len());
        let mut changed = false;
        let mut i = 0;
        while i < items.len() {
            let item = items[i];
            let (code, sub) = match item.split_once(':') {
                Some((code, sub)) => (code, Some(sub)),
                None => (item, None),
            };
            let span = match (code, sub, items.get(i + 1).copied()) {
                ("38" | "48" | "58", None, Some("5")) => 3,
                ("38" | "48" | "58", None, Some("2")) => 5,
                _ => 1,
            }
            .min(items.len() - i);
            let number = |s: &str| s.parse::<u16>().ok();
            let mut keep = true;
            match (code, sub) {
                ("" | "0", None) => *extra = ExtraStyle::default(),
                ("4", Some(n)) => {
                    let style = number(n)
                        .and_then(UnderlineStyle::from_sgr)
                        .unwrap_or(UnderlineStyle::Single);
                    extra.underline_style = style;
                    kept.push(if style == UnderlineStyle::None { "24" } else { "4" });
                    keep = false;
                    changed = true;
                }
                ("4", None) => extra.underline_style = UnderlineStyle::Single,
                ("21", None) => {
                    extra.underline_style = UnderlineStyle::Double;
                    kept.push("4");
                    keep = false;
                    changed = true;
                }
                ("24", None) => extra.underline_style = UnderlineStyle::None,
                ("5" | "6", None) => extra.blink = true,
                ("25", None) => extra.blink = false,
                ("8", None) => extra.hidden = true,
                ("28", None) => extra.hidden = false,
                ("9", None) => extra.strikethrough = true,
                ("29", None) => extra.strikethrough = false,
                ("53", None) => extra.overline = true,
                ("55", None) => extra.overline = false,
                ("58", _) => {
                    let args: Vec<&str> = match sub {
                        Some(sub) => sub.split(':').collect(),
                        None => items[i + 1..i + span].to_vec(),
                    };
                    extra.underline_color = extended_color(args.into_iter());
                    keep = false;
                    changed = true;
                }
                ("59", None) => {
                    extra.underline_color = Color::Default;
                    keep = false;
                    changed = true;
                }
                _ => {}
            }
            if keep {
                kept.extend_from_slice(&items[i..i + span]);
            }
            i += span;
        }
        if extra.underline_style == UnderlineStyle::Single {
            extra.underline_style = UnderlineStyle::None;
        }
        changed.then(|| kept.join(";"))
    }

    #[test]
    fn rewriting_without_lists_gives_what_the_lists_gave_on_generated_parameters() {
        const WORDS: &[&str] = &[
            "",
            "0",
            "1",
            "4",
            "4:0",
            "4:1",
            "4:3",
            "4:9",
            "4:",
            "21",
            "24",
            "5",
            "6",
            "25",
            "8",
            "28",
            "9",
            "29",
            "53",
            "55",
            "58",
            "59",
            "38",
            "48",
            "2",
            "7",
            "255",
            "256",
            "300",
            "2::1:2:3",
            "58:5:9",
            "58:2::1:2:3",
            "58:2:1:2:3",
            "58:",
            ":",
            "x",
            "38:5:1",
            "01",
            "058",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |below: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % below as u64) as usize
        };
        for case in 0..20_000 {
            let words: Vec<&str> = (0..next(9)).map(|_| WORDS[next(WORDS.len())]).collect();
            let params = words.join(";");
            // From a state an earlier SGR left.
            let earlier: Vec<&str> = (0..next(4)).map(|_| WORDS[next(WORDS.len())]).collect();
            let mut before = ExtraStyle::default();
            sgr_with_lists(earlier.join(";").as_bytes(), &mut before);
            let (mut theirs, mut ours) = (before, before);
            let expected = sgr_with_lists(params.as_bytes(), &mut theirs);
            let got = sgr(params.as_bytes(), &mut ours);
            assert_eq!(got, expected, "case {case}: `{params}`");
            assert_eq!(ours, theirs, "case {case}: `{params}`");
        }
    }

    fn rewritten(params: &str) -> (Option<String>, ExtraStyle) {
        let mut extra = ExtraStyle::default();
        (sgr(params.as_bytes(), &mut extra), extra)
    }

    #[test]
    fn underline_colour_is_removed_and_kept() {
        assert_eq!(rewritten("1;31").0, None);
        assert_eq!(rewritten("58;5;1").0.as_deref(), Some(""));
        let (params, extra) = rewritten("4;58;2;255;0;0;1");
        assert_eq!(params.as_deref(), Some("4;1"));
        assert_eq!(extra.underline_color, Color::Rgb(255, 0, 0));
        let (params, extra) = rewritten("58:2::1:2:3;32");
        assert_eq!(params.as_deref(), Some("32"));
        assert_eq!(extra.underline_color, Color::Rgb(1, 2, 3));
        assert_eq!(rewritten("59;7").0.as_deref(), Some("7"));
        assert_eq!(rewritten("38;5;58").0, None);
        assert_eq!(rewritten("38;5;58;59").0.as_deref(), Some("38;5;58"));
    }

    #[test]
    fn underline_styles_become_a_plain_underline_for_vt100() {
        let (params, extra) = rewritten("4:3");
        assert_eq!(params.as_deref(), Some("4"));
        assert_eq!(extra.underline_style, UnderlineStyle::Curly);
        let (params, extra) = rewritten("21");
        assert_eq!(params.as_deref(), Some("4"));
        assert_eq!(extra.underline_style, UnderlineStyle::Double);
        assert_eq!(rewritten("4:0").0.as_deref(), Some("24"));
        // A plain underline needs nothing kept beside vt100's.
        assert_eq!(rewritten("4"), (None, ExtraStyle::default()));
    }

    #[test]
    fn the_background_is_followed_through_sgr_as_vt100_reads_it() {
        assert!(background_after(b"44", false));
        assert!(background_after(b"1;48;5;0", false));
        assert!(background_after(b"48:2::1:2:3", false));
        assert!(background_after(b"104", false));
        assert!(!background_after(b"44;0", false));
        assert!(!background_after(b"", true));
        assert!(!background_after(b"49", true));
        // A foreground's arguments are not backgrounds.
        assert!(!background_after(b"38;5;41", false));
        assert!(!background_after(b"38;2;44;45;46", false));
        assert!(background_after(b"1;31", true));
    }

    #[test]
    fn strike_hidden_blink_and_overline_are_kept_until_reset() {
        let mut extra = ExtraStyle::default();
        assert_eq!(sgr(b"9;8;5;53", &mut extra), None);
        assert!(extra.strikethrough && extra.hidden && extra.blink && extra.overline);
        sgr(b"29;28", &mut extra);
        assert!(!extra.strikethrough && !extra.hidden && extra.blink);
        sgr(b"0", &mut extra);
        assert!(extra.is_plain());
        sgr(b"9", &mut extra);
        sgr(b"", &mut extra);
        assert!(extra.is_plain(), "an empty SGR resets");
    }
}
