//! `report.html`: one file that opens from disk in any browser and asks nothing of the
//! network — its style, script and data inline, a Content-Security-Policy that forbids
//! every request, pictures as `data:` URIs.
//!
//! The screens are the SVG renderer's pieces ([`svg_parts`]): each distinct row (its
//! backgrounds, its text) and each distinct overlay (images, the cursor) is written once
//! and a frame lists the pieces it is made of, so a frame costs a few numbers once its
//! rows have been seen. The script (`viewer.js`) joins a frame's pieces into one inline
//! SVG — crisp, the text selectable — marks the rows that changed since the previous
//! step and the cells a failure located, and drives the step list, the ←/→ keys, the
//! timeline scrubber and playing at real speed.

use std::collections::HashMap;

use base64::Engine;
use serde_json::{Value, json};

use super::{RunReport, Timeline};
use crate::error::Result;
use crate::render::{
    Metrics, RenderOptions, image_size, overlays, row_colors, row_key, row_pieces, text_style,
};

const STYLE: &str = include_str!("viewer.css");
const SCRIPT: &str = include_str!("viewer.js");

/// Pieces of SVG, each kept once, by number; rows also by their [`row_key`], so a row
/// seen before is not drawn again.
#[derive(Default)]
struct Pieces {
    list: Vec<String>,
    index: HashMap<String, usize>,
    rows: HashMap<u64, (usize, usize)>,
}

impl Pieces {
    fn id(&mut self, piece: String) -> usize {
        if let Some(&id) = self.index.get(&piece) {
            return id;
        }
        let id = self.list.len();
        self.index.insert(piece.clone(), id);
        self.list.push(piece);
        id
    }
}

/// Text safe inside an HTML element.
pub(super) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// JSON safe inside a `<script>` element: no `<` at all (only strings can hold one, and
/// `\u003c` reads back the same), so neither `</script>` nor `<!--` can end it early.
fn script_json(value: &Value) -> String {
    value.to_string().replace('<', "\\u003c")
}

/// A PNG file as a `data:` URI, or `None` when it cannot be read.
fn png_uri(path: &std::path::Path) -> Option<String> {
    use std::io::Read;
    // Opened without blocking (a FIFO planted at the name would hang the report), read
    // only when it is a file, and no further than a picture can sensibly be.
    let file = crate::files::open_without_blocking(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(64 << 20).read_to_end(&mut bytes).ok()?;
    Some(format!(
        "data:image/png;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    ))
}

pub(super) fn write(report: &RunReport, timeline: &Timeline, options: &RenderOptions) -> Result<String> {
    let metrics = Metrics::of(options);
    let (x0, y0) = metrics.origin(0, 0);
    let mut pieces = Pieces::default();
    let mut frames = Vec::with_capacity(timeline.frames.len());
    let mut sizes: Vec<Value> = Vec::new();
    let background = format!(
        "#{:02x}{:02x}{:02x}",
        options.theme.background.0, options.theme.background.1, options.theme.background.2
    );
    for frame in &timeline.frames {
        let screen = &frame.screen;
        let (cols, rows) = screen.size();
        let (width, height) = image_size(cols, rows, options)?;
        let size = json!([width, height, background]);
        let size_id = match sizes.iter().position(|s| *s == size) {
            Some(i) => i,
            None => {
                sizes.push(size);
                sizes.len() - 1
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
            let (b, t) = match pieces.rows.get(&key) {
                Some(&ids) => ids,
                None => {
                    // Drawn at row 0; the viewer places it.
                    let (b, t) = row_pieces(screen, (row, 0), row_colors, (&metrics, options));
                    let ids = (pieces.id(b), pieces.id(t));
                    pieces.rows.insert(key, ids);
                    ids
                }
            };
            backgrounds.push(b);
            texts.push(t);
        }
        let (below, above) = overlays(screen, &colors, (&metrics, options))?;
        frames.push(json!({
            "t": frame.at_ms,
            "s": size_id,
            "b": backgrounds,
            "r": texts,
            "u": pieces.id(below),
            "o": pieces.id(above),
        }));
    }
    let style = text_style(options.font_size * options.scale.max(1) as f32);
    let steps: Vec<Value> = report
        .steps
        .iter()
        .zip(&timeline.step_frames)
        .map(|(step, frame)| {
            json!({
                "label": step.label,
                "source": step.source,
                "at": step.at_ms,
                "took": step.took_ms,
                "waited": step.waited,
                "error": step.error,
                "frame": frame,
            })
        })
        .collect();
    let goldens: Vec<Value> = report
        .goldens
        .iter()
        .map(|g| {
            json!({
                "name": g.name,
                "expected": png_uri(&g.expected),
                "actual": png_uri(&g.actual),
                "diff": g.diff.as_deref().and_then(png_uri),
            })
        })
        .collect();
    let attachments: Vec<Value> = report
        .attachments
        .iter()
        .map(|a| json!({"label": a.label, "href": a.path.to_string_lossy()}))
        .collect();
    let data = json!({
        "title": report.title,
        "kind": report.kind,
        "command": report.command,
        "cols": report.cols,
        "rows": report.rows,
        "term": report.term,
        "verdict": report.verdict.word(),
        "duration": report.duration_ms,
        "exit": report.exit,
        "cell": {"x0": x0, "y0": y0, "w": metrics.cell_width, "h": metrics.cell_height},
        "sizes": sizes,
        "pieces": pieces.list,
        "frames": frames,
        "steps": steps,
        "failure": report.failure,
        "goldens": goldens,
        "attachments": attachments,
        "notes": report.notes,
    });
    let title = format!("{} {} — tuipilot", report.verdict.word(), report.title);
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}\n{style}\n</style>\n</head>\n<body>\n\
         <noscript><p>This report draws its screens with a script; <code>report.md</code> beside it has the same in text.</p></noscript>\n\
         <div id=\"app\"></div>\n\
         <script type=\"application/json\" id=\"report-data\">{}</script>\n\
         <script>\n{SCRIPT}\n</script>\n</body>\n</html>\n",
        escape(&title),
        script_json(&data),
    ))
}
