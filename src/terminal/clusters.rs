//! Cell widths the programs agree with: glibc's `wcwidth`, as tmux and xterm use, and
//! grapheme clusters when a program asks for them (DEC mode 2027).
//!
//! vt100 widens a character followed by VS16 (`✔️` takes two cells) and gives each part
//! of a ZWJ sequence its own cells (👨‍👩‍👧 takes six). A program places its cursor by
//! `wcwidth`, where VS16 widens nothing and — as tmux 3.3 shows it — a character after a
//! zero-width joiner joins the cell before it (the family takes two). Where the two
//! disagree the printable text is rewritten before vt100 sees it: the character to join is
//! replaced by a *stand-in*, an unassigned code point vt100 measures as zero cells wide,
//! remembered here with the text it stands for, so the cell keeps the whole cluster.
//! Every text read from the screen goes through [`Clusters::decode`].
//!
//! With mode 2027 on (as in ghostty, WezTerm and contour), widths are the cluster's:
//! VS16 widens (vt100's own rule), a skin tone joins its emoji, and a flag's two regional
//! indicators become one two-cell cluster — a *wide* stand-in, unassigned in a plane
//! vt100 measures as two cells. A flag split between two writes joins as zero width.
//!
//! The same device carries the SGR attributes vt100 drops (strikethrough, hidden, blink,
//! underline styles and colour, overline): while any is in force, each printed character
//! is followed by a stand-in for the set, so the attributes live in the cell and move,
//! scroll and erase with it exactly as its text does.
//!
//! The tables of stand-ins are bounded ([`ZERO_WIDTH`], [`WIDE`], [`STYLES`]); when one is
//! full, text is passed on as it came (the old widths, the attributes vt100 keeps) rather
//! than growing without end.

use std::borrow::Cow;
use std::collections::HashMap;

use super::params::ExtraStyle;

/// Zero-width stand-ins for text: unassigned, default-ignorable code points
/// (U+E0800–U+E0EFF; the range below them holds the image markers of `graphics`).
const ZERO_WIDTH: std::ops::RangeInclusive<u32> = 0xE0800..=0xE0EFF;
/// Zero-width stand-ins for the attributes vt100 drops (U+E0F00–U+E0FFF).
const STYLES: std::ops::RangeInclusive<u32> = 0xE0F00..=0xE0FFF;
/// Wide stand-ins: unassigned code points of plane 3, East Asian Wide (U+31350–U+3FFFD).
const WIDE: std::ops::RangeInclusive<u32> = 0x31350..=0x3FFFD;

const ZWJ: char = '\u{200D}';
const VS16: char = '\u{FE0F}';

/// The width rules in force and the stand-ins handed out so far.
#[derive(Debug, Default)]
pub(crate) struct Clusters {
    /// The last character printed was a zero-width joiner.
    after_zwj: bool,
    /// The last character printed was a regional indicator not yet part of a flag (in
    /// grapheme mode).
    lone_ri: Option<char>,
    zero: Table<Box<str>>,
    wide: Table<Box<str>>,
    styles: Table<ExtraStyle>,
}

/// Stand-ins of one range: what each stands for, both ways.
#[derive(Debug)]
struct Table<T> {
    items: Vec<T>,
    index: HashMap<T, u32>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            items: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<T: Clone + Eq + std::hash::Hash> Table<T> {
    /// The stand-in for `item` in `range`, or `None` when the range is used up.
    fn stand_in(&mut self, item: T, range: &std::ops::RangeInclusive<u32>) -> Option<char> {
        if let Some(&i) = self.index.get(&item) {
            return char::from_u32(range.start() + i);
        }
        let i = self.items.len() as u32;
        if range.start() + i > *range.end() {
            return None;
        }
        self.items.push(item.clone());
        self.index.insert(item, i);
        char::from_u32(range.start() + i)
    }

    /// What the stand-in `c` stands for, if it is one of this table's.
    fn get(&self, c: char, range: &std::ops::RangeInclusive<u32>) -> Option<&T> {
        let i = u32::from(c).checked_sub(*range.start())?;
        if !range.contains(&u32::from(c)) {
            return None;
        }
        self.items.get(i as usize)
    }
}

fn is_regional_indicator(c: char) -> bool {
    ('\u{1F1E6}'..='\u{1F1FF}').contains(&c)
}

fn is_skin_tone(c: char) -> bool {
    ('\u{1F3FB}'..='\u{1F3FF}').contains(&c)
}

impl Clusters {
    /// Rewrites a run of printable text (whole characters) so vt100 gives it the widths
    /// of the rules in force and carries the attributes it drops; `None` when it needs no
    /// change (most text: decided by a search for the characters that matter).
    pub fn rewrite(&mut self, run: &[u8], grapheme_mode: bool, style: &ExtraStyle) -> Option<Vec<u8>> {
        let style = if style.is_plain() {
            None
        } else {
            self.styles.stand_in(*style, &STYLES)
        };
        // Box drawing shares ZWJ's lead byte: look for the whole characters, in a run that
        // holds either's lead byte at all (most runs are ASCII: one pass, no searcher built).
        let joiner_lead = memchr::memchr2(0xE2, 0xEF, run).is_some();
        let interesting = style.is_some()
            || (joiner_lead
                && (memchr::memmem::find(run, "\u{200D}".as_bytes()).is_some()
                    || memchr::memmem::find(run, "\u{FE0F}".as_bytes()).is_some()))
            || (grapheme_mode && memchr::memchr(0xF0, run).is_some());
        // Only a non-ASCII character joins a joiner before it.
        let joins_first = self.after_zwj && run.first().is_some_and(|&b| b >= 0x80);
        if !interesting && !joins_first {
            self.after_zwj = false;
            self.lone_ri = None;
            return None;
        }
        let mut out = Vec::with_capacity(run.len() + 8);
        let mut changed = false;
        // Invalid bytes go on unchanged, between the valid text around them.
        for chunk in run.utf8_chunks() {
            self.rewrite_text(chunk.valid(), grapheme_mode, style, &mut out, &mut changed);
            out.extend_from_slice(chunk.invalid());
        }
        changed.then_some(out)
    }

    /// Rewrites valid text into `out`, noting in `changed` whether anything was replaced.
    fn rewrite_text(
        &mut self,
        text: &str,
        grapheme_mode: bool,
        style: Option<char>,
        out: &mut Vec<u8>,
        changed: &mut bool,
    ) {
        let push = |out: &mut Vec<u8>, c: char| out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        for c in text.chars() {
            let after_zwj = std::mem::replace(&mut self.after_zwj, c == ZWJ);
            let lone_ri = self.lone_ri.take();
            let stand_in = if after_zwj && !c.is_ascii() && c != ZWJ {
                // The character after a joiner joins its cell.
                self.zero
                    .stand_in(c.to_string().into(), &ZERO_WIDTH)
                    .map(Into::into)
            } else if c == VS16 && !grapheme_mode {
                // VS16 keeps its place in the cell without widening it.
                self.zero.stand_in("\u{FE0F}".into(), &ZERO_WIDTH).map(Into::into)
            } else if grapheme_mode && is_skin_tone(c) {
                self.zero
                    .stand_in(c.to_string().into(), &ZERO_WIDTH)
                    .map(Into::into)
            } else if grapheme_mode && is_regional_indicator(c) {
                match lone_ri {
                    // The flag's second half: back over the first and write the pair as
                    // one two-cell cluster (the same whether the halves came in one write
                    // or two).
                    Some(first) => {
                        let flag: String = [first, c].into_iter().collect();
                        self.wide
                            .stand_in(flag.into(), &WIDE)
                            .map(|wide| format!("\x08{wide}"))
                    }
                    None => {
                        self.lone_ri = Some(c);
                        None
                    }
                }
            } else {
                None
            };
            match stand_in {
                Some(s) => {
                    out.extend_from_slice(s.as_bytes());
                    *changed = true;
                }
                None => {
                    push(out, c);
                    if let Some(style) = style
                        && unicode_width::UnicodeWidthChar::width(c).is_some_and(|w| w > 0)
                    {
                        push(out, style);
                        *changed = true;
                    }
                }
            }
        }
    }

    /// A cell's text with its stand-ins replaced, and the attributes it was printed with.
    pub fn decode_cell<'a>(&self, text: &'a str) -> (Cow<'a, str>, ExtraStyle) {
        let mut extra = ExtraStyle::default();
        if text.bytes().any(|b| b == 0xF3) {
            for c in text.chars() {
                if let Some(style) = self.styles.get(c, &STYLES) {
                    extra = *style;
                }
            }
        }
        (self.decode(text), extra)
    }

    /// `text` with every stand-in replaced by the text it stands for (attribute stand-ins
    /// and image markers by nothing).
    pub fn decode<'a>(&self, text: &'a str) -> Cow<'a, str> {
        // Both ranges are 4-byte characters of planes 3 and 14: lead byte F0 or F3.
        if !text.bytes().any(|b| b == 0xF0 || b == 0xF3) {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            match self.zero.get(c, &ZERO_WIDTH).or_else(|| self.wide.get(c, &WIDE)) {
                Some(s) => out.push_str(s),
                None if STYLES.contains(&u32::from(c)) || super::graphics::marker_index(c).is_some() => {}
                None => out.push(c),
            }
        }
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(clusters: &mut Clusters, text: &str) -> String {
        rewritten_in(clusters, text, false)
    }

    fn rewritten_in(clusters: &mut Clusters, text: &str, grapheme_mode: bool) -> String {
        let bytes = clusters
            .rewrite(text.as_bytes(), grapheme_mode, &ExtraStyle::default())
            .unwrap_or_else(|| text.as_bytes().to_vec());
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn plain_text_and_box_drawing_pass_untouched() {
        let mut c = Clusters::default();
        assert_eq!(
            c.rewrite("hello ┌─┐ 漢字 😀".as_bytes(), false, &ExtraStyle::default()),
            None
        );
    }

    #[test]
    fn vs16_and_the_character_after_a_joiner_become_zero_width_stand_ins() {
        let mut c = Clusters::default();
        let family = "👨\u{200D}👩\u{200D}👧";
        let out = rewritten(&mut c, family);
        assert_eq!(out.chars().count(), 5);
        assert_eq!(unicode_width::UnicodeWidthStr::width(out.as_str()), 2);
        assert_eq!(c.decode(&out), family);
        let heart = rewritten(&mut c, "❤\u{FE0F}");
        assert_eq!(unicode_width::UnicodeWidthStr::width(heart.as_str()), 1);
        assert_eq!(c.decode(&heart), "❤\u{FE0F}");
    }

    #[test]
    fn a_joiner_at_the_end_of_one_write_joins_the_first_character_of_the_next() {
        let mut c = Clusters::default();
        let first = rewritten(&mut c, "👨\u{200D}");
        let second = rewritten(&mut c, "👩x");
        assert_eq!(c.decode(&format!("{first}{second}")), "👨\u{200D}👩x");
        assert_eq!(unicode_width::UnicodeWidthStr::width(second.as_str()), 1);
    }

    #[test]
    fn grapheme_mode_widens_vs16_and_makes_a_flag_one_wide_cluster() {
        let mut c = Clusters::default();
        assert_eq!(
            c.rewrite("✔\u{FE0F}".as_bytes(), true, &ExtraStyle::default()),
            None,
            "vt100 widens it itself"
        );
        // The second regional indicator backs over the first and writes both as one
        // two-cell stand-in.
        let flag = rewritten_in(&mut c, "🇯🇵", true);
        assert_eq!(flag.chars().count(), 3);
        assert!(flag.starts_with("🇯\x08"));
        assert_eq!(unicode_width::UnicodeWidthStr::width(&flag["🇯\x08".len()..]), 2);
        assert_eq!(c.decode(&flag["🇯\x08".len()..]), "🇯🇵");
        let thumb = rewritten_in(&mut c, "👍🏽", true);
        assert_eq!(unicode_width::UnicodeWidthStr::width(thumb.as_str()), 2);
        assert_eq!(c.decode(&thumb), "👍🏽");
    }

    #[test]
    fn a_full_table_passes_text_on_unchanged() {
        let mut c = Clusters::default();
        let size = (ZERO_WIDTH.end() - ZERO_WIDTH.start() + 1) as usize;
        for i in 0..size as u32 {
            let joined = char::from_u32(0x4E00 + i).unwrap();
            c.rewrite(
                format!("a\u{200D}{joined}").as_bytes(),
                false,
                &ExtraStyle::default(),
            );
        }
        assert_eq!(c.zero.items.len(), size);
        let out = rewritten(&mut c, "a\u{200D}\u{9FA0}");
        assert_eq!(out, "a\u{200D}\u{9FA0}");
    }
}
