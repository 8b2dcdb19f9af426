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

use base64::Engine;
use std::fmt::Write as _;

use serde_json::json;

use super::{RunReport, Timeline};
use crate::error::Result;
use crate::render::{Metrics, text_style};

const STYLE: &str = include_str!("viewer.css");
const SCRIPT: &str = include_str!("viewer.js");

/// Text safe inside an HTML element.
pub(super) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
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

pub(super) fn write(report: &RunReport, timeline: &Timeline) -> Result<String> {
    let options = &timeline.options;
    let metrics = Metrics::of(options);
    let (x0, y0) = metrics.origin(0, 0);
    let style = text_style(options.font_size * options.scale.max(1) as f32);
    let title = format!("{} {} — tuipilot", report.verdict.word(), report.title);
    let mut out = String::with_capacity(timeline.piece_bytes() + 64 * timeline.frames.len() + (64 << 10));
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}\n{style}\n</style>\n</head>\n<body>\n\
         <noscript><p>This report draws its screens with a script; <code>report.md</code> beside it has the same in text.</p></noscript>\n\
         <div id=\"app\"></div>\n\
         <script type=\"application/json\" id=\"report-data\">",
        escape(&title)
    );
    // The data, written a part at a time into the page (a report's pieces and frames are
    // its bulk: no second copy of them is built as one JSON value).
    let mut data = JsonObject::new(&mut out);
    data.field("title", &report.title);
    data.field("kind", &report.kind);
    data.field("command", &report.command);
    data.field("cols", &report.cols);
    data.field("rows", &report.rows);
    data.field("term", &report.term);
    data.field("verdict", &report.verdict.word());
    data.field("duration", &report.duration_ms);
    data.field("exit", &report.exit);
    data.field(
        "cell",
        &json!({"x0": x0, "y0": y0, "w": metrics.cell_width, "h": metrics.cell_height}),
    );
    data.field(
        "sizes",
        &timeline
            .sizes
            .iter()
            .map(|(w, h, bg)| json!([w, h, bg]))
            .collect::<Vec<_>>(),
    );
    data.list("pieces", timeline.pieces().iter(), |out, piece| {
        script_json_into(out, &piece.as_str())
    });
    data.list("frames", timeline.frames.iter(), |out, frame| {
        let ids = |list: &[usize]| list.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        let _ = write!(
            out,
            "{{\"t\":{},\"s\":{},\"b\":[{}],\"r\":[{}],\"u\":{},\"o\":{}}}",
            frame.at_ms,
            frame.size,
            ids(&frame.backgrounds),
            ids(&frame.texts),
            frame.below,
            frame.above
        );
    });
    data.list(
        "steps",
        report.steps.iter().zip(&timeline.step_frames),
        |out, (step, frame)| {
            script_json_into(
                out,
                &json!({
                    "label": step.label,
                    "source": step.source,
                    "at": step.at_ms,
                    "took": step.took_ms,
                    "waited": step.waited,
                    "error": step.error,
                    "frame": frame,
                }),
            )
        },
    );
    data.field("failure", &report.failure);
    data.list("goldens", report.goldens.iter(), |out, g| {
        script_json_into(
            out,
            &json!({
                "name": g.name,
                "expected": png_uri(&g.expected),
                "actual": png_uri(&g.actual),
                "diff": g.diff.as_deref().and_then(png_uri),
            }),
        )
    });
    data.list("attachments", report.attachments.iter(), |out, a| {
        script_json_into(out, &json!({"label": a.label, "href": a.path.to_string_lossy()}))
    });
    data.field("notes", &report.notes);
    data.end();
    let _ = write!(
        out,
        "</script>\n<script>\n{SCRIPT}\n</script>\n</body>\n</html>\n"
    );
    Ok(out)
}

/// A JSON object written field by field into a page's script element.
struct JsonObject<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> JsonObject<'a> {
    fn new(out: &'a mut String) -> JsonObject<'a> {
        out.push('{');
        JsonObject { out, first: true }
    }

    fn key(&mut self, name: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        let _ = write!(self.out, "\"{name}\":");
    }

    fn field(&mut self, name: &str, value: &impl serde::Serialize) {
        self.key(name);
        script_json_into(self.out, value);
    }

    /// A list, each item written by `item`.
    fn list<T>(&mut self, name: &str, items: impl Iterator<Item = T>, mut item: impl FnMut(&mut String, T)) {
        self.key(name);
        self.out.push('[');
        for (n, value) in items.enumerate() {
            if n > 0 {
                self.out.push(',');
            }
            item(self.out, value);
        }
        self.out.push(']');
    }

    fn end(self) {
        self.out.push('}');
    }
}

/// `value` as JSON safe inside a `<script>` element, appended to `out`: no `<` at all
/// (only strings can hold one, and `\u003c` reads back the same), so neither `</script>`
/// nor `<!--` can end it early.
fn script_json_into(out: &mut String, value: &impl serde::Serialize) {
    let json = serde_json::to_string(value).unwrap_or_else(|_| "null".into());
    let mut rest = json.as_str();
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        out.push_str("\\u003c");
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}
