//! A run's screens in time, kept as what a report shows of them: its recording replayed
//! through the engine's terminal, a frame wherever the screen changed — at most one every
//! [`FRAME_MS`] (what is drawn faster is not seen at real speed) and at most
//! [`MAX_FRAMES`] (evenly spread when the program drew more often) — and, for each step,
//! the frame it ended on: the screen after every output that arrived before the step
//! returned.
//!
//! A frame is not kept as a screen. Each is drawn as it passes into the SVG renderer's
//! pieces ([`row_pieces`], [`overlays`]) — each distinct row's backgrounds and text, each
//! distinct overlay — kept once, and the frame keeps only the numbers of its pieces: what
//! the viewer places. So a timeline's memory is its distinct pieces plus a few numbers a
//! row per frame, not a screen's cells per frame (a 500×400 screen is megabytes; 300 such
//! frames took gigabytes). The pieces have a budget, [`MAX_PIECE_BYTES`]: a program that
//! draws new rows faster than the budget allows has its frames thinned (one every so many
//! milliseconds, doubling as needed) and, past the budget, its later screens not drawn;
//! the screens' text kept for the steps has one too, [`MAX_TEXT_BYTES`]. Every bound that
//! applied is said in [`Timeline::thinned`], which the report carries as notes.

use std::collections::HashMap;

use crate::error::Result;
use crate::record::EventKind;
use crate::render::{Metrics, RenderOptions, image_size, overlays, row_colors, row_key, row_pieces};
use crate::snapshot::Snapshot;
use crate::terminal::Terminal;

use super::RunReport;

/// The most frames a timeline keeps between steps; a program that drew more often keeps
/// one every `duration / MAX_FRAMES` (the screens after steps are always kept).
pub const MAX_FRAMES: usize = 2000;

/// The shortest time between two frames of the program's own drawing, in milliseconds
/// (100 frames a second; the screens after steps are kept however close).
pub const FRAME_MS: u64 = 10;

/// The most bytes of drawn pieces a timeline keeps, counted as `report.html` writes them:
/// frames are thinned to stay within it, and past it no new screen is drawn.
pub const MAX_PIECE_BYTES: usize = 48 << 20;

/// The most bytes of screen text a timeline keeps for its steps (each step's screen in
/// `report.md` and `report.json`); past it, later steps' screens are left out.
pub const MAX_TEXT_BYTES: usize = 16 << 20;

/// One screen of the timeline, as the numbers of its pieces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// When it was on the screen from, in milliseconds since the run started.
    pub at_ms: u64,
    /// Its picture's size and background, by number ([`Timeline::sizes`]).
    pub size: usize,
    /// Each row's backgrounds, by piece number.
    pub backgrounds: Vec<usize>,
    /// Each row's text, by piece number.
    pub texts: Vec<usize>,
    /// What lies below the text (images), by piece number.
    pub below: usize,
    /// What lies above it (images, the cursor), by piece number.
    pub above: usize,
}

impl Frame {
    /// Whether it shows what `other` shows.
    fn same_picture(&self, other: &Frame) -> bool {
        (self.size, &self.backgrounds, &self.texts, self.below, self.above)
            == (
                other.size,
                &other.backgrounds,
                &other.texts,
                other.below,
                other.above,
            )
    }
}

/// Pieces of SVG, each kept once, by number; rows also by their [`row_key`], so a row
/// seen before is not drawn again.
#[derive(Default)]
struct Pieces {
    list: Vec<String>,
    /// Piece numbers by a hash of their text (several where hashes meet).
    index: HashMap<u64, Vec<usize>>,
    rows: HashMap<u64, (usize, usize)>,
    bytes: usize,
}

impl Pieces {
    fn id(&mut self, piece: String) -> usize {
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(&piece);
        let ids = self.index.entry(hash).or_default();
        if let Some(&id) = ids.iter().find(|&&id| self.list[id] == piece) {
            return id;
        }
        let id = self.list.len();
        // What it costs in the page: in the report's JSON a `<` is written `\u003c` and a
        // quote or backslash escaped.
        self.bytes += piece.len()
            + piece
                .bytes()
                .map(|b| match b {
                    b'<' => 5,
                    b'"' | b'\\' => 1,
                    _ => 0,
                })
                .sum::<usize>();
        ids.push(id);
        self.list.push(piece);
        id
    }
}

/// The frames, for each step the frame it ended on, and the pieces they are drawn with.
pub struct Timeline {
    /// The frames in time order; the first is the screen before any output.
    pub frames: Vec<Frame>,
    /// For each of the report's steps, the frame it ended on.
    pub step_frames: Vec<usize>,
    /// Every bound the timeline applied, in words ("frames thinned to one every 40 ms …").
    pub thinned: Vec<String>,
    /// The pictures' sizes in pixels and their background colour (`#rrggbb`).
    pub sizes: Vec<(u32, u32, String)>,
    /// How the pieces were drawn.
    pub options: RenderOptions,
    pieces: Pieces,
    /// The text of the frames steps ended on (and of the first and the last frame).
    texts: HashMap<usize, String>,
    text_bytes: usize,
}

impl std::fmt::Debug for Timeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Timeline")
            .field("frames", &self.frames.len())
            .field("pieces", &self.pieces.list.len())
            .field("piece_bytes", &self.pieces.bytes)
            .field("step_frames", &self.step_frames)
            .field("thinned", &self.thinned)
            .finish()
    }
}

impl Timeline {
    /// The timeline of a report's recording, drawn with `options`; without a recording,
    /// its last screen is the only frame and every step shows it.
    pub fn build(report: &RunReport, options: &RenderOptions) -> Result<Timeline> {
        let steps = report.steps.len();
        let mut timeline = Timeline {
            frames: Vec::new(),
            step_frames: vec![0; steps],
            thinned: Vec::new(),
            sizes: Vec::new(),
            options: options.clone(),
            pieces: Pieces::default(),
            texts: HashMap::new(),
            text_bytes: 0,
        };
        let metrics = Metrics::of(options);
        let Some(recording) = &report.recording else {
            let screen = match &report.last_screen {
                Some(screen) => screen.clone(),
                None => Terminal::new(report.cols.max(1), report.rows.max(1))?.snapshot(),
            };
            timeline.push(report.duration_ms, &screen, &metrics, true)?;
            return Ok(timeline);
        };
        let mut terminal = Terminal::new(recording.header().cols, recording.header().rows)?;
        let drawn = recording.drawn();
        let duration = super::seconds_to_ms(recording.duration());
        let mut spacing = if drawn > MAX_FRAMES {
            let spacing = (duration / MAX_FRAMES as u64).max(FRAME_MS);
            timeline.thinned.push(format!(
                "frames thinned to one every {spacing} ms: the program drew {drawn} times, and a report keeps at most {MAX_FRAMES} frames between its steps"
            ));
            spacing
        } else {
            FRAME_MS
        };
        let (first_spacing, mut widest) = (spacing, spacing);
        // Steps by the time they ended (a log is in order; a merged one may not be).
        let mut order: Vec<usize> = (0..steps).collect();
        order.sort_by_key(|&i| report.steps[i].end_us());
        timeline.push(0, &terminal.snapshot(), &metrics, true)?;
        let (mut next, mut not_drawn) = (0, 0usize);
        // Whether the terminal holds a change no frame shows yet.
        let mut pending = false;
        for event in recording.events()? {
            let event = event?;
            let at_ms = super::seconds_to_ms(event.time);
            let at_us = super::seconds_to_us(event.time);
            // Steps that returned before this event ended on the screen as it is now.
            while next < order.len() && report.steps[order[next]].end_us() < at_us {
                if pending {
                    let at = at_ms.min(report.steps[order[next]].end_ms());
                    if timeline.push(at, &terminal.snapshot(), &metrics, true)? {
                        pending = false;
                    } else {
                        not_drawn += 1;
                    }
                }
                timeline.step_frames[order[next]] = timeline.frames.len() - 1;
                // The text of the frame as drawn (a screen not drawn keeps none).
                if !pending {
                    timeline.keep_text(timeline.frames.len() - 1, &terminal);
                }
                next += 1;
            }
            if !matches!(event.kind, EventKind::Output(_) | EventKind::Resize(..)) {
                continue;
            }
            event.draw(&mut terminal)?;
            pending = true;
            // On pace for the budget: the pieces may have used the share of it that the
            // time gone by is of the whole (an eighth at least). Past that, the frames
            // left are spaced so that, drawing as much a frame as so far, the rest of
            // the budget lasts to the end.
            let share = (MAX_PIECE_BYTES as u128 * u128::from(at_ms) / u128::from(duration.max(1)))
                .max(MAX_PIECE_BYTES as u128 / 8);
            spacing = if timeline.pieces.bytes as u128 > share {
                let per_frame = (timeline.pieces.bytes / timeline.frames.len().max(1)).max(1);
                let affordable = (MAX_PIECE_BYTES / 8 * 7).saturating_sub(timeline.pieces.bytes) / per_frame;
                let paced = duration.saturating_sub(at_ms) / (affordable as u64).max(1);
                paced.max(first_spacing)
            } else {
                first_spacing
            };
            widest = widest.max(spacing);
            let last = timeline.frames.last().map_or(0, |f| f.at_ms);
            if at_ms < last.saturating_add(spacing) {
                continue;
            }
            if timeline.push(at_ms, &terminal.snapshot(), &metrics, false)? {
                pending = false;
            }
        }
        if pending {
            if timeline.push(duration, &terminal.snapshot(), &metrics, true)? {
                pending = false;
            } else {
                not_drawn += 1;
            }
        }
        let last = timeline.frames.len() - 1;
        for &step in &order[next..] {
            timeline.step_frames[step] = last;
        }
        if !pending {
            timeline.keep_text(last, &terminal);
        }
        if widest > first_spacing {
            timeline.thinned.push(format!(
                "frames thinned to keep the report's pictures within {} MB: {} frames kept, up to {widest} ms apart",
                MAX_PIECE_BYTES >> 20,
                timeline.frames.len()
            ));
        }
        if not_drawn > 0 {
            timeline.thinned.push(format!(
                "{not_drawn} later screens are not drawn: the report's pictures reached {} MB; those steps show the last screen drawn",
                MAX_PIECE_BYTES >> 20
            ));
        }
        Ok(timeline)
    }

    /// Draws `screen` as a frame at `at_ms` unless it shows what the last one does.
    /// Whether the frame stands (drawn, or the same as the last); `false` when the
    /// pieces' budget is spent and the screen is not drawn. A frame a step ended on
    /// (`step`) is drawn while the budget lasts; the program's own frames stop a little
    /// before it, so the steps' screens keep the rest.
    fn push(&mut self, at_ms: u64, screen: &Snapshot, metrics: &Metrics, step: bool) -> Result<bool> {
        let limit = if step {
            MAX_PIECE_BYTES
        } else {
            MAX_PIECE_BYTES / 8 * 7
        };
        if self.pieces.bytes > limit {
            return Ok(false);
        }
        let options = &self.options;
        let (cols, rows) = screen.size();
        let (width, height) = image_size(cols, rows, options)?;
        let background = options.theme.background;
        let size = (
            width,
            height,
            format!("#{:02x}{:02x}{:02x}", background.0, background.1, background.2),
        );
        let size = match self.sizes.iter().position(|s| *s == size) {
            Some(i) => i,
            None => {
                self.sizes.push(size);
                self.sizes.len() - 1
            }
        };
        let colors: Vec<_> = (0..rows).map(|row| row_colors(screen, row, options)).collect();
        let (mut backgrounds, mut texts) = (
            Vec::with_capacity(usize::from(rows)),
            Vec::with_capacity(usize::from(rows)),
        );
        for row in 0..rows {
            let row_colors = &colors[usize::from(row)];
            let key = row_key(screen, row, row_colors);
            let (b, t) = match self.pieces.rows.get(&key) {
                Some(&ids) => ids,
                None => {
                    // Drawn at row 0; the viewer places it.
                    let (b, t) = row_pieces(screen, (row, 0), row_colors, (metrics, options));
                    let ids = (self.pieces.id(b), self.pieces.id(t));
                    self.pieces.rows.insert(key, ids);
                    ids
                }
            };
            backgrounds.push(b);
            texts.push(t);
        }
        let (below, above) = overlays(screen, &colors, (metrics, options))?;
        let frame = Frame {
            at_ms,
            size,
            backgrounds,
            texts,
            below: self.pieces.id(below),
            above: self.pieces.id(above),
        };
        if !self.frames.last().is_some_and(|last| last.same_picture(&frame)) {
            self.frames.push(frame);
            if self.frames.len() == 1 {
                self.keep_text(0, screen);
            }
        }
        Ok(true)
    }

    /// Keeps the text of frame `index` (what `source` shows), within the text budget.
    fn keep_text(&mut self, index: usize, source: &impl ScreenSource) {
        if self.texts.contains_key(&index) {
            return;
        }
        if self.text_bytes > MAX_TEXT_BYTES {
            if !self.thinned.iter().any(|t| t.contains("screen text")) {
                self.thinned.push(format!(
                    "the screens of later steps are left out of the text: the report's screen text reached {} MB",
                    MAX_TEXT_BYTES >> 20
                ));
            }
            return;
        }
        let text = source.screen_text();
        self.text_bytes += text.len();
        self.texts.insert(index, text);
    }

    /// The text of frame `index`, where it was kept: the frames steps ended on, the
    /// first and the last (within [`MAX_TEXT_BYTES`]).
    pub fn text(&self, index: usize) -> Option<&str> {
        self.texts.get(&index).map(String::as_str)
    }

    /// The text of the screen step `step` ended on, where it was kept.
    pub fn step_text(&self, step: usize) -> Option<&str> {
        self.text(*self.step_frames.get(step)?)
    }

    /// The drawn pieces, by number.
    pub fn pieces(&self) -> &[String] {
        &self.pieces.list
    }

    /// How many bytes the drawn pieces hold.
    pub fn piece_bytes(&self) -> usize {
        self.pieces.bytes
    }
}

/// What a frame's text is read from: the terminal as it is, or a screen.
trait ScreenSource {
    fn screen_text(&self) -> String;
}

impl ScreenSource for Terminal {
    fn screen_text(&self) -> String {
        self.text()
    }
}

impl ScreenSource for Snapshot {
    fn screen_text(&self) -> String {
        self.text()
    }
}
