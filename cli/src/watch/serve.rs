//! The live view's session side is the engine's ([`tuipilot::live::serve`]); what is the
//! command line's is turning a host connection that asked to `watch` into one.

use std::io::{BufReader, Write};
use std::os::unix::net::UnixStream;

use tuipilot::Session;
pub use tuipilot::live::serve::{Person, Watcher, send_typed, serve};

/// Turns a protocol connection that asked to `watch` session `name` into a live view: the
/// request's `ok` (request `id`), then [`serve`] until the watcher hangs up. Whatever the
/// reader holds past the request is the view's first input; the watcher's lines have no
/// deadline (it sends only when the person acts).
pub fn hand_over(
    session: &Session,
    name: &str,
    id: Option<u64>,
    reader: BufReader<crate::host::guards::DeadlineReader>,
    mut writer: UnixStream,
    view: (u16, u16),
    control: bool,
) {
    let hello = serde_json::json!({ "watching": name, "control": control });
    let line = format!("{}\n", crate::host::protocol::ok_line(id, &hello));
    if writer.write_all(line.as_bytes()).is_err() {
        return;
    }
    let read_ahead = reader.buffer().to_vec();
    let stream = reader.into_inner().stream;
    let _ = stream.set_read_timeout(None);
    serve(session, stream, read_ahead, view, &Watcher { control });
}
