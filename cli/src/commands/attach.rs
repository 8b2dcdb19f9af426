//! `tuipilot attach`: a session's screen live in the person's terminal (see `crate::watch`).

use std::time::Duration;

use serde_json::Value;

use super::client::session_paths;
use crate::error::{ErrorCode, Failure};
use crate::host::client::Client;
use crate::host::protocol::Request;
use crate::watch::tty::PersonTerminal;
use crate::watch::view::{self, Ended, Purpose};

/// How long a session goes on once nobody uses it, in words, from its host's `hello`
/// (nothing from a host too old to say).
fn lifetime(hello: &Value) -> String {
    let Some(secs) = hello["idle_timeout_secs"].as_u64() else {
        return String::new();
    };
    let span = match secs {
        s if s % 3600 == 0 => format!("{} h", s / 3600),
        s if s % 60 == 0 => format!("{} min", s / 60),
        s => format!("{s} s"),
    };
    format!(" until {span} pass with no request and no watcher")
}

/// Watches session `name` until the person leaves or the session ends.
pub(super) fn attach(name: &str, control: bool) -> Result<(), Failure> {
    let paths = session_paths(name)?;
    let (client, hello) = Client::connect(&paths)?;
    let can_watch = hello["capabilities"]
        .as_array()
        .is_some_and(|all| all.iter().any(|c| c == &Value::from("watch")));
    if !can_watch {
        return Err(Failure::new(
            ErrorCode::Unsupported,
            format!(
                "session `{name}`'s host cannot be watched (it was started by an older tuipilot): start it again"
            ),
        ));
    }
    let terminal = PersonTerminal::take()?;
    let (cols, rows) = view::view_of(terminal.size());
    let request = Request::Watch { control, cols, rows };
    let (_, stream, read_ahead) = client.into_stream(&request, Duration::from_secs(10))?;
    let ended = view::run(&terminal, stream, read_ahead, name, Purpose::Attach { control });
    drop(terminal);
    match ended? {
        Ended::Left => eprintln!(
            "tuipilot: left session `{name}`; it goes on{} (`tuipilot -s {name} attach` watches it again)",
            lifetime(&hello)
        ),
        Ended::SessionGone | Ended::ProgramExited => {
            eprintln!(
                "tuipilot: session `{name}` ended (its host stopped, or the process it belongs to let it go)"
            )
        }
        // Nobody is left to read a word: the session goes on.
        Ended::HungUp => {}
    }
    Ok(())
}
