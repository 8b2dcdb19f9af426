//! Colours: what a cell asks for ([`Color`]), what it is in sRGB ([`Rgb`]), and the themes
//! that turn one into the other (the 16-colour palette, default foreground/background,
//! cursor colour, and the 256-colour cube and grey ramp).
//!
//! The engine answers a program's colour queries (OSC 4/10/11/12) from the theme, and the
//! renderer paints with the same values, so what a program asks for and what an image
//! shows agree. Colours 16–255 are the xterm cube and grey ramp, computed exactly.

/// A cell colour as the program set it.
///
/// `Debug` and `Display` name the 16 ANSI colours, so a failed comparison reads
/// `Indexed(3 = yellow)`, not a bare number.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Color {
    /// The terminal's default foreground or background.
    #[default]
    Default,
    /// A palette index: 0–15 the ANSI colours, 16–231 the cube, 232–255 the grey ramp.
    Indexed(u8),
    /// A 24-bit colour.
    Rgb(u8, u8, u8),
}

/// The names of the 16 palette colours, by index, as ratatui's and crossterm's `Color`
/// spell them (`Gray` is 7, SGR 37; `DarkGray` 8; `LightRed`…`LightCyan` 9–14; `White` 15,
/// SGR 97): a test names the colour the way the app's code does.
pub const ANSI_NAMES: [&str; 16] = [
    "black",
    "red",
    "green",
    "yellow",
    "blue",
    "magenta",
    "cyan",
    "gray",
    "dark-gray",
    "light-red",
    "light-green",
    "light-yellow",
    "light-blue",
    "light-magenta",
    "light-cyan",
    "white",
];

/// Other names for the 16: the spellings `grey`, and the terminals' `bright-*` for 8–15.
const ALIASES: [(&str, u8); 10] = [
    ("grey", 7),
    ("dark-grey", 8),
    ("bright-black", 8),
    ("bright-red", 9),
    ("bright-green", 10),
    ("bright-yellow", 11),
    ("bright-blue", 12),
    ("bright-magenta", 13),
    ("bright-cyan", 14),
    ("bright-white", 15),
];

/// When `expected` and `found` are one palette colour's normal and bright versions (7 and
/// 15 most often: SGR 37 is ratatui's `Gray`, its `White` is 15), which name means which.
pub fn normal_or_bright_hint(expected: Color, found: Color) -> Option<String> {
    match (expected, found) {
        (Color::Indexed(e), Color::Indexed(f)) if e < 16 && f < 16 && e.abs_diff(f) == 8 => {
            let name = |i: u8| ANSI_NAMES[usize::from(i)];
            Some(format!(
                "`{}` is palette {e} and `{}` palette {f}: the normal and bright versions of one colour (ratatui's names; numbers work too)",
                name(e),
                name(f)
            ))
        }
        _ => None,
    }
}

impl Color {
    /// A colour by name: ratatui's names for the 16 ([`ANSI_NAMES`]: `Yellow`, `Gray` = 7,
    /// `DarkGray` = 8, `LightRed` = 9, `White` = 15; case, `-` and `_` do not matter), the
    /// terminals' `bright-*` for 8–15, `default`, `#rrggbb`, or a palette index (`208`).
    pub fn named(name: &str) -> Option<Color> {
        let key: String = name
            .trim()
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | ' '))
            .flat_map(char::to_lowercase)
            .collect();
        if key == "default" {
            return Some(Color::Default);
        }
        if let Some(hex) = key.strip_prefix('#')
            && hex.len() == 6
        {
            let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
            return Some(Color::Rgb(byte(0)?, byte(2)?, byte(4)?));
        }
        if let Ok(index) = key.parse::<u8>() {
            return Some(Color::Indexed(index));
        }
        let squash = |n: &str| n.replace('-', "");
        ANSI_NAMES
            .iter()
            .position(|n| squash(n) == key)
            .map(|i| i as u8)
            .or_else(|| ALIASES.iter().find(|(n, _)| squash(n) == key).map(|(_, i)| *i))
            .map(Color::Indexed)
    }

    /// The ANSI name of a palette index 0–15.
    pub fn name(self) -> Option<&'static str> {
        match self {
            Color::Indexed(i) => ANSI_NAMES.get(usize::from(i)).copied(),
            _ => None,
        }
    }
}

impl std::fmt::Display for Color {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self, self.name()) {
            (Color::Default, _) => f.write_str("default"),
            (Color::Indexed(i), Some(name)) => write!(f, "{name} ({i})"),
            (Color::Indexed(i), None) => write!(f, "colour {i}"),
            (Color::Rgb(r, g, b), _) => write!(f, "#{r:02x}{g:02x}{b:02x}"),
        }
    }
}

impl std::fmt::Debug for Color {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self, self.name()) {
            (Color::Default, _) => f.write_str("Default"),
            (Color::Indexed(i), Some(name)) => write!(f, "Indexed({i} = {name})"),
            (Color::Indexed(i), None) => write!(f, "Indexed({i})"),
            (Color::Rgb(r, g, b), _) => write!(f, "Rgb({r}, {g}, {b})"),
        }
    }
}

impl From<vt100::Color> for Color {
    fn from(c: vt100::Color) -> Color {
        match c {
            vt100::Color::Default => Color::Default,
            vt100::Color::Idx(i) => Color::Indexed(i),
            vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
        }
    }
}

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// The X11 form used in OSC colour replies: `rgb:RRRR/GGGG/BBBB`.
    pub fn x11(self) -> String {
        let wide = |c: u8| u16::from(c) * 0x101;
        format!(
            "rgb:{:04x}/{:04x}/{:04x}",
            wide(self.0),
            wide(self.1),
            wide(self.2)
        )
    }
}

/// A named colour theme.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theme {
    /// Its name (`dark`, `light`).
    pub name: &'static str,
    /// Default text colour.
    pub foreground: Rgb,
    /// Default background.
    pub background: Rgb,
    /// Cursor colour.
    pub cursor: Rgb,
    /// The 16 ANSI colours: 0–7 normal, 8–15 bright.
    pub ansi: [Rgb; 16],
}

/// The names [`Theme::by_name`] accepts (case and spaces aside).
pub const THEME_NAMES: &[&str] = &["dark", "light", "Dracula", "Nord", "Catppuccin Mocha"];

/// `#rrggbb` (or `rrggbb`) as a colour.
fn hex(text: &str) -> Option<Rgb> {
    let digits = text.strip_prefix('#').unwrap_or(text);
    if digits.len() != 6 || !digits.is_ascii() {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&digits[i..i + 2], 16).ok();
    Some(Rgb(byte(0)?, byte(2)?, byte(4)?))
}

/// A theme from 16 ANSI colours and the default foreground and background, as hex.
fn from_hex(name: &'static str, fg: &str, bg: &str, ansi: [&str; 16]) -> Theme {
    let parse = |h: &str| hex(h).unwrap_or(Rgb(0x80, 0x80, 0x80));
    Theme {
        name,
        foreground: parse(fg),
        background: parse(bg),
        cursor: parse(fg),
        ansi: ansi.map(parse),
    }
}

/// Themes bundled under VHS's names: name, foreground, background, the 16 colours.
type Bundled = (&'static str, &'static str, &'static str, [&'static str; 16]);

const BUNDLED: &[Bundled] = &[
    (
        "Dracula",
        "#f8f8f2",
        "#282a36",
        [
            "#21222c", "#ff5555", "#50fa7b", "#f1fa8c", "#bd93f9", "#ff79c6", "#8be9fd", "#f8f8f2",
            "#6272a4", "#ff6e6e", "#69ff94", "#ffffa5", "#d6acff", "#ff92df", "#a4ffff", "#ffffff",
        ],
    ),
    (
        "Nord",
        "#d8dee9",
        "#2e3440",
        [
            "#3b4252", "#bf616a", "#a3be8c", "#ebcb8b", "#81a1c1", "#b48ead", "#88c0d0", "#e5e9f0",
            "#4c566a", "#bf616a", "#a3be8c", "#ebcb8b", "#81a1c1", "#b48ead", "#8fbcbb", "#eceff4",
        ],
    ),
    (
        "Catppuccin Mocha",
        "#cdd6f4",
        "#1e1e2e",
        [
            "#45475a", "#f38ba8", "#a6e3a1", "#f9e2af", "#89b4fa", "#f5c2e7", "#94e2d5", "#bac2de",
            "#585b70", "#f38ba8", "#a6e3a1", "#f9e2af", "#89b4fa", "#f5c2e7", "#94e2d5", "#a6adc8",
        ],
    ),
];

/// The keys of VHS's theme JSON for the 16 colours, in palette order (`purple` is an
/// alias some themes use for magenta).
const JSON_KEYS: [&[&str]; 16] = [
    &["black"],
    &["red"],
    &["green"],
    &["yellow"],
    &["blue"],
    &["magenta", "purple"],
    &["cyan"],
    &["white"],
    &["brightBlack"],
    &["brightRed"],
    &["brightGreen"],
    &["brightYellow"],
    &["brightBlue"],
    &["brightMagenta", "brightPurple"],
    &["brightCyan"],
    &["brightWhite"],
];

impl Theme {
    /// `COLORFGBG` for this theme: `15;0` (white on black) when the background is dark,
    /// `0;15` when it is light — the form rxvt sets and emacs, vim and ncurses read.
    pub fn colorfgbg(&self) -> &'static str {
        let Rgb(r, g, b) = self.background;
        let luma = 299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b);
        if luma < 128 * 1000 { "15;0" } else { "0;15" }
    }

    /// The default theme: light text on a near-black background.
    pub fn dark() -> Theme {
        Theme {
            name: "dark",
            foreground: Rgb(0xd4, 0xd4, 0xd4),
            background: Rgb(0x1e, 0x1e, 0x1e),
            cursor: Rgb(0xd4, 0xd4, 0xd4),
            ansi: [
                Rgb(0x00, 0x00, 0x00),
                Rgb(0xcd, 0x31, 0x31),
                Rgb(0x0d, 0xbc, 0x79),
                Rgb(0xe5, 0xe5, 0x10),
                Rgb(0x24, 0x72, 0xc8),
                Rgb(0xbc, 0x3f, 0xbc),
                Rgb(0x11, 0xa8, 0xcd),
                Rgb(0xe5, 0xe5, 0xe5),
                Rgb(0x66, 0x66, 0x66),
                Rgb(0xf1, 0x4c, 0x4c),
                Rgb(0x23, 0xd1, 0x8b),
                Rgb(0xf5, 0xf5, 0x43),
                Rgb(0x3b, 0x8e, 0xea),
                Rgb(0xd6, 0x70, 0xd6),
                Rgb(0x29, 0xb8, 0xdb),
                Rgb(0xff, 0xff, 0xff),
            ],
        }
    }

    /// A light theme: dark text on white.
    pub fn light() -> Theme {
        Theme {
            name: "light",
            foreground: Rgb(0x1f, 0x1f, 0x1f),
            background: Rgb(0xff, 0xff, 0xff),
            cursor: Rgb(0x1f, 0x1f, 0x1f),
            ansi: [
                Rgb(0x00, 0x00, 0x00),
                Rgb(0xcd, 0x31, 0x31),
                Rgb(0x00, 0xbc, 0x00),
                Rgb(0x94, 0x98, 0x00),
                Rgb(0x04, 0x51, 0xa5),
                Rgb(0xbc, 0x05, 0xbc),
                Rgb(0x05, 0x98, 0xbc),
                Rgb(0x55, 0x55, 0x55),
                Rgb(0x66, 0x66, 0x66),
                Rgb(0xcd, 0x31, 0x31),
                Rgb(0x14, 0xce, 0x14),
                Rgb(0xb5, 0xba, 0x00),
                Rgb(0x04, 0x51, 0xa5),
                Rgb(0xbc, 0x05, 0xbc),
                Rgb(0x05, 0x98, 0xbc),
                Rgb(0xa5, 0xa5, 0xa5),
            ],
        }
    }

    /// Looks a theme up by name (see [`THEME_NAMES`]; case and spaces do not matter), or
    /// reads one written as VHS's theme JSON (`{"background": "#282a36", "red": …}`).
    pub fn by_name(name: &str) -> Option<Theme> {
        if name.trim_start().starts_with('{') {
            return Theme::from_json(name).ok();
        }
        let key: String = name
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-' && *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        Some(match key.as_str() {
            "dark" => Theme::dark(),
            "light" => Theme::light(),
            _ => {
                let (name, fg, bg, ansi) = BUNDLED
                    .iter()
                    .find(|(name, ..)| name.replace(' ', "").eq_ignore_ascii_case(&key))?;
                from_hex(name, fg, bg, *ansi)
            }
        })
    }

    /// A theme from VHS's JSON form: the 16 colours by name (`black` … `brightWhite`),
    /// `background`, `foreground` and `cursor` as `#rrggbb`. Colours it leaves out come
    /// from the dark theme; a colour that is not `#rrggbb` is an error naming the key.
    pub fn from_json(json: &str) -> std::result::Result<Theme, String> {
        let value: serde_json::Value =
            serde_json::from_str(json).map_err(|e| format!("theme JSON does not parse: {e}"))?;
        let object = value
            .as_object()
            .ok_or("theme JSON must be an object of colours")?;
        let colour = |keys: &[&str]| -> std::result::Result<Option<Rgb>, String> {
            for key in keys {
                if let Some(v) = object.get(*key) {
                    let text = v.as_str().unwrap_or("");
                    return hex(text)
                        .map(Some)
                        .ok_or_else(|| format!("theme colour `{key}` is {v}, not #rrggbb"));
                }
            }
            Ok(None)
        };
        let mut theme = Theme::dark();
        theme.name = "custom";
        for (slot, keys) in theme.ansi.iter_mut().zip(JSON_KEYS) {
            if let Some(c) = colour(keys)? {
                *slot = c;
            }
        }
        if let Some(c) = colour(&["background"])? {
            theme.background = c;
        }
        if let Some(c) = colour(&["foreground"])? {
            theme.foreground = c;
            theme.cursor = c;
        }
        if let Some(c) = colour(&["cursor"])? {
            theme.cursor = c;
        }
        Ok(theme)
    }

    /// The colour for a 256-colour palette index: the theme's 16, then the 6×6×6 cube,
    /// then the 24-step grey ramp.
    pub fn indexed(&self, index: u8) -> Rgb {
        match index {
            0..=15 => self.ansi[usize::from(index)],
            16..=231 => {
                let i = index - 16;
                let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
                Rgb(level(i / 36), level((i / 6) % 6), level(i % 6))
            }
            232..=255 => {
                let g = 8 + 10 * (index - 232);
                Rgb(g, g, g)
            }
        }
    }
}

impl Default for Theme {
    fn default() -> Theme {
        Theme::dark()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_and_ramp_match_xterm() {
        let t = Theme::dark();
        assert_eq!(t.indexed(16), Rgb(0, 0, 0));
        assert_eq!(t.indexed(196), Rgb(255, 0, 0));
        assert_eq!(t.indexed(67), Rgb(95, 135, 175));
        assert_eq!(t.indexed(231), Rgb(255, 255, 255));
        assert_eq!(t.indexed(232), Rgb(8, 8, 8));
        assert_eq!(t.indexed(255), Rgb(238, 238, 238));
    }

    #[test]
    fn x11_form() {
        assert_eq!(Rgb(0x1e, 0xff, 0).x11(), "rgb:1e1e/ffff/0000");
    }
}

#[cfg(test)]
mod names {
    use super::*;

    #[test]
    fn colours_have_names_both_ways() {
        assert_eq!(Color::named("yellow"), Some(Color::Indexed(3)));
        assert_eq!(Color::named("LightRed"), Some(Color::Indexed(9)));
        assert_eq!(Color::named("Dark_Gray"), Some(Color::Indexed(8)));
        assert_eq!(Color::named("bright-white"), Some(Color::Indexed(15)));
        // ratatui's names exactly: White is 15, Gray 7.
        assert_eq!(Color::named("White"), Some(Color::Indexed(15)));
        assert_eq!(Color::named("Gray"), Some(Color::Indexed(7)));
        assert_eq!(Color::named("light_magenta"), Some(Color::Indexed(13)));
        assert_eq!(Color::Indexed(7).to_string(), "gray (7)");
        assert!(
            normal_or_bright_hint(Color::Indexed(15), Color::Indexed(7))
                .is_some_and(|h| h.starts_with("`white` is palette 15 and `gray` palette 7"))
        );
        assert_eq!(normal_or_bright_hint(Color::Indexed(1), Color::Indexed(2)), None);
        assert_eq!(Color::named("#ff8800"), Some(Color::Rgb(255, 136, 0)));
        assert_eq!(Color::named("208"), Some(Color::Indexed(208)));
        assert_eq!(Color::named("default"), Some(Color::Default));
        assert_eq!(Color::named("chartreuse"), None);
        assert_eq!(format!("{:?}", Color::Indexed(3)), "Indexed(3 = yellow)");
        assert_eq!(Color::Indexed(3).to_string(), "yellow (3)");
        assert_eq!(Color::Indexed(208).to_string(), "colour 208");
        assert_eq!(Color::Rgb(1, 2, 255).to_string(), "#0102ff");
    }
}
