//! The screen as `capture` shows it, and `send --capture` after its send: one request
//! (`Operation::Capture`, which makes it the base of the next `capture --changed`) and one
//! way of printing it — the text, trimmed, the changed rows, the picture's paths, or JSON.

use tuipilot::Operation;
use tuipilot::operation::{Screen, SvgRequest, WaitFor};

use super::args::ScreenView;
use super::client::{call, decode};
use super::output::{self, print_json, print_screen};
use crate::error::Failure;

impl ScreenView {
    /// Whether any option was given (on `send`, any of them asks for the capture).
    pub(super) fn asked(&self) -> bool {
        self.ansi
            || self.scrollback
            || self.changed
            || self.trim
            || !self.mask.is_empty()
            || self.png.is_some()
            || self.svg.is_some()
    }
}

/// Captures the screen (after `wait`, if given) and prints it as `view` says. `waited` is
/// why a send before it stopped waiting, kept in the screen's `waited` (a send that met a
/// busy program says so on stderr, as it always did).
pub(super) fn show_capture(
    name: &str,
    json: bool,
    wait: Option<WaitFor>,
    timeout_ms: Option<u64>,
    view: ScreenView,
    waited: Option<String>,
) -> Result<(), Failure> {
    let ScreenView {
        ansi,
        scrollback,
        changed,
        trim,
        mask,
        png,
        svg,
        window,
        render,
    } = view;
    let png = png.map(|path| render.request(path).map(Box::new)).transpose()?;
    let svg = svg
        .map(|path| render.request(Some(path)))
        .transpose()?
        .map(|drawing| Box::new(SvgRequest { drawing, window }));
    let wants_png = png.is_some() || svg.is_some();
    let operation = Operation::Capture {
        wait,
        timeout_ms,
        ansi,
        scrollback,
        png,
        svg,
        // Without --json a PNG or SVG capture prints only the files' paths (and the
        // changed rows, asked for).
        text: json || !wants_png || changed,
        mask,
        scrolled_back: 0,
    };
    let mut screen: Screen = decode(call(name, operation, timeout_ms)?["screen"].clone())?;
    if waited.is_some() {
        screen.set_waited(waited);
    }
    if let Some(busy) = screen.not_ready() {
        eprintln!("tuipilot: {}; the screen as it is now", output::printable(busy));
    }
    output::note_pending(screen.pending.as_deref(), screen.unwaited.as_deref());
    output::hint_missing_glyphs(&screen);
    if changed && !json {
        say!("{}", screen.changed_view());
    }
    if wants_png && !json {
        for path in screen.png.iter().chain(&screen.svg) {
            say!("{}", path.display());
        }
        return Ok(());
    }
    if changed && !json {
        return Ok(());
    }
    if trim {
        let (text, empty_below) = screen.trimmed_text();
        if !json {
            say!("{text}");
            return Ok(());
        }
        let mut value = serde_json::to_value(Screen {
            text: text.to_string(),
            ..screen.clone()
        })
        .map_err(|e| Failure::internal(e.to_string()))?;
        value["empty_rows_below"] = serde_json::json!(empty_below);
        return print_json(name, &value);
    }
    print_screen(name, json, &screen, true)
}
