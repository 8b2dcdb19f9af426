//! What Python reads of a screen besides its text: a match of `find`, a cell's style.

use pyo3::prelude::*;
use tuipilot::Color;

/// A colour as a `Style` reports it: `default`, an ANSI name for 0–15 (`red`,
/// `light-red`), `colour N` for the rest of the palette, `#rrggbb` for 24-bit.
pub(crate) fn colour(color: Color) -> String {
    match color {
        Color::Default => "default".into(),
        Color::Indexed(i) => color.name().map_or_else(|| format!("colour {i}"), str::to_string),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
    }
}

/// A match of a pattern on the screen.
#[pyclass(frozen, module = "tuipilot._native", name = "Match", eq)]
#[derive(Clone, PartialEq)]
pub(crate) struct PyMatch {
    /// The row, 0-based from the top.
    #[pyo3(get)]
    pub(crate) row: u16,
    /// The column (in cells) where the match starts, 0-based.
    #[pyo3(get)]
    pub(crate) col: u16,
    /// The matched text.
    #[pyo3(get)]
    pub(crate) text: String,
}

impl From<tuipilot::Match> for PyMatch {
    fn from(m: tuipilot::Match) -> PyMatch {
        PyMatch {
            row: m.row,
            col: m.col,
            text: m.text,
        }
    }
}

#[pymethods]
impl PyMatch {
    fn __repr__(&self) -> String {
        format!("Match(row={}, col={}, text={:?})", self.row, self.col, self.text)
    }
}

/// The look of one cell.
#[pyclass(frozen, module = "tuipilot._native", name = "Style", eq)]
#[derive(Clone, PartialEq)]
pub(crate) struct PyStyle {
    pub(crate) style: tuipilot::Style,
}

#[pymethods]
impl PyStyle {
    /// Foreground colour: `default`, an ANSI name for 0–15 (`red`, `light-red`),
    /// `colour N` for the rest of the palette, `#rrggbb` for 24-bit.
    #[getter]
    fn fg(&self) -> String {
        colour(self.style.fg)
    }

    /// Background colour, spelt as `fg`.
    #[getter]
    fn bg(&self) -> String {
        colour(self.style.bg)
    }

    /// Bold (SGR 1).
    #[getter]
    fn bold(&self) -> bool {
        self.style.bold
    }

    /// Dim (SGR 2).
    #[getter]
    fn dim(&self) -> bool {
        self.style.dim
    }

    /// Italic (SGR 3).
    #[getter]
    fn italic(&self) -> bool {
        self.style.italic
    }

    /// Underlined, in any style (SGR 4).
    #[getter]
    fn underline(&self) -> bool {
        self.style.underline
    }

    /// Foreground and background swapped (SGR 7).
    #[getter]
    fn inverse(&self) -> bool {
        self.style.inverse
    }

    /// Struck through (SGR 9).
    #[getter]
    fn strikethrough(&self) -> bool {
        self.style.strikethrough
    }

    /// Hidden (SGR 8).
    #[getter]
    fn hidden(&self) -> bool {
        self.style.hidden
    }

    /// Blinking (SGR 5).
    #[getter]
    fn blink(&self) -> bool {
        self.style.blink
    }

    /// Overlined (SGR 53).
    #[getter]
    fn overline(&self) -> bool {
        self.style.overline
    }

    /// The style in the words every report uses: `Style(bold fg=red (1))`.
    fn __repr__(&self) -> String {
        format!("Style({})", self.style)
    }
}
