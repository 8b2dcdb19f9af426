//! A cell's drawing attributes: what vt100 keeps (colours, bold, dim, italic, underline,
//! inverse) and what the gap layer keeps beside it (strikethrough, hidden, blink, the
//! underline's style and colour, overline), with the SGR that sets them all, in tmux's
//! spelling for `capture-pane -e` (`4:3` for a curly underline, `58;5;n` for its colour;
//! overline as the standard `53`, where tmux 3.3 writes `5:3`).

use crate::color::Color;

/// How a cell is underlined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnderlineStyle {
    /// Not underlined.
    #[default]
    None,
    /// One straight line (SGR 4, `4:1`).
    Single,
    /// Two lines (SGR 21, `4:2`).
    Double,
    /// A wave (`4:3`): spelling and diagnostics in editors.
    Curly,
    /// Dots (`4:4`).
    Dotted,
    /// Dashes (`4:5`).
    Dashed,
}

impl UnderlineStyle {
    /// The style for the `n` of `SGR 4:n` (`None` for a number that is none of them).
    pub fn from_sgr(n: u16) -> Option<UnderlineStyle> {
        Some(match n {
            0 => UnderlineStyle::None,
            1 => UnderlineStyle::Single,
            2 => UnderlineStyle::Double,
            3 => UnderlineStyle::Curly,
            4 => UnderlineStyle::Dotted,
            5 => UnderlineStyle::Dashed,
            _ => return None,
        })
    }

    fn sgr(self) -> &'static str {
        match self {
            UnderlineStyle::None => "",
            UnderlineStyle::Single => "4",
            UnderlineStyle::Double => "4:2",
            UnderlineStyle::Curly => "4:3",
            UnderlineStyle::Dotted => "4:4",
            UnderlineStyle::Dashed => "4:5",
        }
    }
}

/// The drawing attributes of one cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Style {
    /// Foreground colour.
    pub fg: Color,
    /// Background colour.
    pub bg: Color,
    /// Bold (SGR 1).
    pub bold: bool,
    /// Dim, faint (SGR 2).
    pub dim: bool,
    /// Italic (SGR 3).
    pub italic: bool,
    /// Underlined in any style (SGR 4, 4:n, 21); [`underline_style`](Self::underline_style)
    /// says which.
    pub underline: bool,
    /// Foreground and background swapped (SGR 7).
    pub inverse: bool,
    /// The underline's style ([`UnderlineStyle::None`] when not underlined).
    pub underline_style: UnderlineStyle,
    /// The underline's colour (SGR 58; `Default`: the text's colour).
    pub underline_color: Color,
    /// Struck through (SGR 9).
    pub strikethrough: bool,
    /// Hidden, concealed (SGR 8): drawn as background.
    pub hidden: bool,
    /// Blinking (SGR 5 or 6): drawn steady.
    pub blink: bool,
    /// A line over the text (SGR 53).
    pub overline: bool,
}

impl Style {
    /// The SGR sequence that sets exactly this style from a reset.
    pub fn sgr(&self) -> String {
        let mut codes: Vec<String> = vec!["0".into()];
        for (on, code) in [
            (self.bold, "1"),
            (self.dim, "2"),
            (self.italic, "3"),
            (self.underline, self.underline_style.sgr()),
            (self.blink, "5"),
            (self.inverse, "7"),
            (self.hidden, "8"),
            (self.strikethrough, "9"),
            (self.overline, "53"),
        ] {
            if on && !code.is_empty() {
                codes.push(code.into());
            }
        }
        if self.underline && self.underline_style == UnderlineStyle::None {
            codes.push("4".into());
        }
        for (color, base) in [(self.fg, 38), (self.bg, 48)] {
            match color {
                Color::Default => {}
                Color::Indexed(i) => codes.push(format!("{base};5;{i}")),
                Color::Rgb(r, g, b) => codes.push(format!("{base};2;{r};{g};{b}")),
            }
        }
        match self.underline_color {
            Color::Default => {}
            Color::Indexed(i) => codes.push(format!("58;5;{i}")),
            Color::Rgb(r, g, b) => codes.push(format!("58;2;{r};{g};{b}")),
        }
        format!("\x1b[{}m", codes.join(";"))
    }
}

impl std::fmt::Display for Style {
    /// The attributes in words: `bold underline fg=yellow (3) bg=#102030`, or `default`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let underline = match self.underline_style {
            UnderlineStyle::Double => "double-underline",
            UnderlineStyle::Curly => "curly-underline",
            UnderlineStyle::Dotted => "dotted-underline",
            UnderlineStyle::Dashed => "dashed-underline",
            _ => "underline",
        };
        let mut words: Vec<String> = [
            (self.bold, "bold"),
            (self.dim, "dim"),
            (self.italic, "italic"),
            (self.underline, underline),
            (self.inverse, "inverse"),
            (self.strikethrough, "strikethrough"),
            (self.hidden, "hidden"),
            (self.blink, "blink"),
            (self.overline, "overline"),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, word)| word.to_string())
        .collect();
        if self.fg != Color::Default {
            words.push(format!("fg={}", self.fg));
        }
        if self.bg != Color::Default {
            words.push(format!("bg={}", self.bg));
        }
        if self.underline_color != Color::Default {
            words.push(format!("underline-color={}", self.underline_color));
        }
        if words.is_empty() {
            f.write_str("default")
        } else {
            f.write_str(&words.join(" "))
        }
    }
}
