//! `tuipilot export`: a running session's start spec and operation log, from its host —
//! or, with `--from`, a session's recording after it ended — turned by the library into a
//! tape (with its snapshot) or a Rust `#[test]`.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use tuipilot::StartSpec;
use tuipilot::operation::LoggedOperation;
use tuipilot::tape::export::{ExportOptions, test_name, to_rust, to_tape, write_world};

use super::client::{decode, session_paths};
use crate::error::Failure;
use crate::host::client::Client;
use crate::host::protocol::Request;

// `export`'s arguments.
#[derive(clap::Args)]
pub(super) struct ExportArgs {
    /// Write here (a tape's snapshot, NAME.snap, goes beside it); default: print it.
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    output: Option<PathBuf>,
    /// A Rust #[test] that uses the library, instead of a tape.
    #[arg(long)]
    rust: bool,
    /// Write the values of the session's environment (`start --env`); by default only
    /// the names are written, and the replay takes the values from where it runs.
    #[arg(long)]
    include_env: bool,
    /// Write text matching this regex (in typed and pasted text, the command line, the
    /// environment's values, the screens) as `<redacted>` (repeatable).
    #[arg(long, value_name = "REGEX", action = clap::ArgAction::Append)]
    redact: Vec<String>,
    /// Do not assert text matching this regex (repeatable): every row the export expects
    /// matches anything there, and every snapshot masks it, as `capture --mask` does —
    /// for text chosen afresh on every run that held still while the session watched
    /// (what `--verify` says a replay shows otherwise).
    #[arg(long, value_name = "REGEX", action = clap::ArgAction::Append)]
    mask: Vec<String>,
    /// Replay where the session ran, in its folder with your HOME. By default an export
    /// is hermetic: it replays in a fresh HOME of its own (removed after) as its working
    /// folder, so it meets none of the files the session left.
    #[arg(long)]
    in_place: bool,
    /// A file or folder the hermetic replay starts with, copied into its fresh HOME when
    /// it starts (repeatable): besides the session's world (your ~/.bashrc for the
    /// prompt a shell had), or instead of it where it is too large to carry.
    #[arg(long, value_name = "FILE", action = clap::ArgAction::Append, conflicts_with = "in_place")]
    with: Vec<PathBuf>,
    /// Carry no copy of the session's world. By default a hermetic export carries the
    /// session's folder and the files its command named as they were when it started
    /// (NAME.world/ beside the export), and the replay runs inside that copy.
    #[arg(long, conflicts_with = "in_place")]
    without_world: bool,
    /// Export from a session's recording (start --record) instead of a live session: the
    /// recording carries how the program was started and every operation.
    #[arg(long, value_name = "REC.cast")]
    from: Option<PathBuf>,
    /// Replay the export once before you leave the session (the tape, or for --rust the
    /// tape that spells the same steps), comparing its snapshots and writing none: exit 1
    /// naming the line that would fail. What was exported is written either way.
    #[arg(long)]
    verify: bool,
}

pub(super) fn export(name: &str, args: ExportArgs) -> Result<(), Failure> {
    let mut options = ExportOptions::new(args.include_env, &args.redact)?.mask(&args.mask)?;
    options.in_place = args.in_place;
    for file in &args.with {
        if !file.exists() {
            return Err(Failure::bad_request(format!(
                "--with {}: no such file or folder; name what the replay starts with",
                file.display()
            )));
        }
        options.with.push(
            std::path::absolute(file)
                .map_err(|e| Failure::bad_request(format!("--with {}: {e}", file.display())))?,
        );
    }
    let (start, log, name) = match &args.from {
        Some(cast) => {
            if args.include_env {
                return Err(Failure::bad_request(
                    "--include-env with --from: a recording keeps the environment by name only; set the values where the tape runs",
                ));
            }
            let recording = tuipilot::record::Recording::read_file(cast)?;
            let (start, log) = tuipilot::tape::export::from_recording(&recording)?;
            let stem = cast
                .file_stem()
                .map_or_else(|| name.to_string(), |s| s.to_string_lossy().into_owned());
            (start, log, stem)
        }
        None => {
            let paths = session_paths(name)?;
            let mut reply = Client::request_once(&paths, &Request::Log, Duration::from_secs(30))?;
            let start: StartSpec = decode(reply.get_mut("start").map(Value::take).unwrap_or_default())?;
            let log: Vec<LoggedOperation> =
                decode(reply.get_mut("operations").map(Value::take).unwrap_or_default())?;
            options.screen_now = reply.get("screen").and_then(Value::as_str).map(str::to_string);
            // Printed, an export has no folder to carry a world in: it says so below.
            if !args.in_place && !args.without_world {
                let world = carried_world(reply.get_mut("world").map(Value::take), !args.with.is_empty())?;
                match (&args.output, world) {
                    (Some(_), world) => options.world = world,
                    (None, Some((map, _))) => eprintln!(
                        "tuipilot: note: the session's world ({}) is carried only beside an export written with -o PATH; this one replays in an empty HOME",
                        map.summary
                    ),
                    (None, None) => {}
                }
            }
            (start, log, name.to_string())
        }
    };
    let name = name.as_str();
    // The folder an export written with -o goes in (a world is carried only then).
    let beside = |path: &Option<PathBuf>| -> PathBuf {
        path.as_ref()
            .and_then(|p| p.parent())
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from)
    };
    // Private, and never through a link planted at the name: an export holds what was typed.
    let write = |path: &PathBuf, text: &str| {
        tuipilot::files::write_file(path, text.as_bytes(), tuipilot::files::Access::Private)
            .map(drop)
            .map_err(Failure::from)
    };
    if args.rust {
        let code = to_rust(&start, &log, &test_name(name), &options)?;
        match &args.output {
            Some(path) => write(path, &code)?,
            None => say!("{}", code.trim_end()),
        }
        if let Some(world) = write_world(&options, &test_name(name), &beside(&args.output))? {
            say!(
                "wrote the session's world to {}: the test finds it beside its source file",
                world.display()
            );
        }
        if args.verify {
            // The Rust test and the tape are spelled from the same steps.
            if let Some(why) = tuipilot::tape::export::verify(&start, &log, name, &options)? {
                return Err(Failure::replay_fails(&why, "the test is written as it is"));
            }
            eprintln!("tuipilot: export --verify: the test's steps replay");
        }
        return Ok(());
    }
    let stem = args
        .output
        .as_ref()
        .and_then(|p| p.file_stem())
        .map_or_else(|| name.to_string(), |s| s.to_string_lossy().into_owned());
    let exported = to_tape(&start, &log, &stem, &options)?;
    let verified = match args.verify {
        true => Some(tuipilot::tape::export::verify(&start, &log, &stem, &options)?),
        false => None,
    };
    let world = write_world(&options, &stem, &beside(&args.output))?;
    if let (Some(world), Some((map, _))) = (&world, &options.world) {
        say!(
            "wrote the session's world to {} ({})",
            world.display(),
            map.summary
        );
    }
    match &args.output {
        Some(path) => {
            write(path, &exported.tape)?;
            if let Some((file, text)) = &exported.snapshot {
                let snap = path.parent().unwrap_or(std::path::Path::new("")).join(file);
                write(&snap, text)?;
                say!(
                    "wrote {} and {} ({} operations)",
                    path.display(),
                    snap.display(),
                    log.len()
                );
            } else {
                say!("wrote {} ({} operations)", path.display(), log.len());
            }
        }
        None => {
            say!("{}", exported.tape.trim_end());
            if exported.snapshot.is_some() {
                eprintln!(
                    "tuipilot: note: the tape ends with `Snapshot {stem}`; with -o PATH its .snap is written beside it, else the first run creates it"
                );
            }
        }
    }
    match verified {
        Some(Some(why)) => Err(Failure::replay_fails(&why, "the tape is written as it is")),
        Some(None) => {
            eprintln!("tuipilot: export --verify: the tape replays");
            Ok(())
        }
        None => Ok(()),
    }
}

/// The world a hermetic export carries, from the host's `log` reply: its map and where
/// its copy is; none when the session kept none. A world refused for its size is an
/// error naming the ways out, unless files were chosen with `--with` (`chosen`): they
/// are the replay's world then.
fn carried_world(
    reply: Option<Value>,
    chosen: bool,
) -> Result<Option<(tuipilot::files::WorldMap, PathBuf)>, Failure> {
    let Some(Value::Object(mut world)) = reply else {
        return Ok(None);
    };
    if let Some(Value::String(why)) = world.get("refused") {
        return match chosen {
            true => Ok(None),
            false => Err(tuipilot::files::refused_error(why).into()),
        };
    }
    let map = decode(world.get_mut("map").map(Value::take).unwrap_or_default())?;
    let root: PathBuf = decode(world.get_mut("root").map(Value::take).unwrap_or_default())?;
    Ok(Some((map, root)))
}
