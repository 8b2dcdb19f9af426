//! The session's world in an export: the program's folder and the files its command names,
//! copied when the session starts and carried beside the tape, so the replay runs against
//! what the session's program found — not what it left (an edited input), not the real
//! path an absolute argument named — and a world that cannot be carried whole is refused
//! or said, never copied in part.

mod common;

use std::path::Path;

use tuipilot::StartSpec;
use tuipilot::files::{WorldLimits, WorldRefused};
use tuipilot::operation::{Operation, WaitFor};
use tuipilot::tape::export::{ExportOptions, to_tape, write_world};
use tuipilot::tape::{RunOptions, run_file};

use common::{send_op as send, wait_op as wait};

/// Starts `command` in `dir` with its world kept, as the command line's sessions do.
fn start_in(dir: &Path, command: &[&str]) -> tuipilot::Session {
    let mut spec = StartSpec::new(command.iter().map(|w| w.to_string()));
    spec.cwd = Some(dir.to_path_buf());
    spec.builder()
        .unwrap()
        .capture_world(WorldLimits::default())
        .spawn()
        .unwrap()
}

/// Exports the session as NAME.tape in `out`, with its world; the tape's text.
fn export_with_world(s: &tuipilot::Session, command: &[&str], dir: &Path, out: &Path, name: &str) -> String {
    let world = s
        .world()
        .expect("the world was asked for")
        .expect("the world was copied");
    let mut spec = StartSpec::new(command.iter().map(|w| w.to_string()));
    spec.cwd = Some(dir.to_path_buf());
    let options = ExportOptions {
        world: Some((world.map(), world.root().to_path_buf())),
        ..ExportOptions::default()
    };
    let exported = to_tape(&spec, &s.operations(), name, &options).unwrap();
    std::fs::write(out.join(format!("{name}.tape")), &exported.tape).unwrap();
    if let Some((snap, text)) = exported.snapshot {
        std::fs::write(out.join(snap), text).unwrap();
    }
    let written = write_world(&options, name, out)
        .unwrap()
        .expect("a world is written");
    assert_eq!(written, out.join(format!("{name}.world")));
    exported.tape
}

/// Runs NAME.tape in `out` three times; each must pass.
fn replays_three_times(out: &Path, name: &str, tape: &str) {
    for run in 1..=3 {
        let report = run_file(out.join(format!("{name}.tape")), &RunOptions::default());
        assert!(report.is_ok(), "replay {run}:\n{tape}\n{report:?}");
    }
}

#[test]
fn a_session_that_edits_its_input_replays_against_the_input_as_it_was() {
    let dir = common::TempDir::new("world-edit");
    let out = common::TempDir::new("world-edit-out");
    std::fs::write(dir.0.join("notes.txt"), "first line\n").unwrap();
    std::fs::write(
        dir.0.join("edit.sh"),
        "cat notes.txt\nprintf 'ready> '\nread answer\necho \"$answer\" >> notes.txt\ncat notes.txt\nread done\n",
    )
    .unwrap();
    let command = ["sh", "edit.sh"];
    let s = start_in(&dir.0, &command);
    s.apply(&wait(WaitFor::Text("ready>".into()))).unwrap();
    s.apply(&send("added", "Enter", Some(WaitFor::Text("^added$".into()))))
        .unwrap();
    s.apply(&Operation::capture_text()).unwrap();
    let tape = export_with_world(&s, &command, &dir.0, &out.0, "edit");
    s.exit().unwrap();
    // The session edited the real file; the world kept it as it was.
    assert_eq!(
        std::fs::read_to_string(dir.0.join("notes.txt")).unwrap(),
        "first line\nadded\n"
    );
    // The world is the session's folder: its copy keeps the folder's name.
    let kept = out
        .0
        .join("edit.world")
        .join(dir.0.file_name().unwrap())
        .join("notes.txt");
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "first line\n");
    assert!(tape.contains("With \"edit.world\""), "{tape}");
    assert!(
        tape.contains("# The session's world, as it was when it started (2 files"),
        "{tape}"
    );
    replays_three_times(&out.0, "edit", &tape);
    // The copy beside the tape is what every replay starts from: unchanged by them.
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "first line\n");
}

#[test]
fn absolute_paths_into_the_world_are_replayed_inside_the_copy() {
    let root = common::TempDir::new("world-absolute");
    let dir = root.0.join("project");
    let other = root.0.join("shared");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(dir.join("show.sh"), "cat \"$1\"; printf 'shown\\n'; read done\n").unwrap();
    std::fs::write(other.join("motd.txt"), "message of the day\n").unwrap();
    let script = dir.join("show.sh").display().to_string();
    let motd = other.join("motd.txt").display().to_string();
    let command = ["sh", script.as_str(), motd.as_str()];
    let s = start_in(&dir, &command);
    s.apply(&wait(WaitFor::Text("^shown$".into()))).unwrap();
    s.apply(&Operation::capture_text()).unwrap();
    let out = common::TempDir::new("world-absolute-out");
    let tape = export_with_world(&s, &command, &dir, &out.0, "show");
    s.exit().unwrap();
    // The replay names the copies, reached from the copy of the session's folder.
    assert!(tape.contains(r#"sh "./show.sh" "../shared/motd.txt""#), "{tape}");
    let start = tape.lines().find(|l| l.starts_with("Start+Dir")).expect(&tape);
    assert!(!start.contains(&motd), "no real path is replayed: {start}");
    // The real files change; the replay does not see it.
    std::fs::write(other.join("motd.txt"), "changed since\n").unwrap();
    replays_three_times(&out.0, "show", &tape);
}

#[test]
fn a_world_past_the_limit_is_refused_whole_with_the_ways_out() {
    let dir = common::TempDir::new("world-large");
    std::fs::write(dir.0.join("big.bin"), vec![7u8; 4096]).unwrap();
    let mut spec = StartSpec::new(["sh", "-c", "read line"].map(String::from));
    spec.cwd = Some(dir.0.clone());
    let s = spec
        .builder()
        .unwrap()
        .capture_world(WorldLimits {
            bytes: 1000,
            entries: 100,
        })
        .spawn()
        .unwrap();
    let refused = s.world().unwrap().unwrap_err();
    assert!(matches!(refused, WorldRefused::TooLarge { .. }), "{refused:?}");
    let message = tuipilot::files::refused_error(refused).to_string();
    assert!(
        message.contains(&dir.0.display().to_string())
            && message.contains("more than 1000 bytes or 100 files")
            && message.contains("--without-world")
            && message.contains("--with PATH")
            && !message.contains('\n'),
        "{message}"
    );
    s.exit().unwrap();
}

#[test]
fn links_sockets_and_fifos_are_left_out_and_said_and_names_need_not_be_text() {
    use std::os::unix::ffi::OsStrExt;
    let dir = common::TempDir::new("world-odd");
    std::fs::write(dir.0.join("kept.txt"), "kept\n").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.0.join("out-link")).unwrap();
    std::os::unix::fs::symlink("kept.txt", dir.0.join("in-link")).unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(dir.0.join("s.sock")).unwrap();
    let fifo = std::ffi::CString::new(dir.0.join("pipe").as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid path; mkfifo only creates the node.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let odd = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(dir.0.join(odd), "latin-1 name\n").unwrap();
    let s = start_in(&dir.0, &["sh", "-c", "read line"]);
    let world = s.world().unwrap().unwrap();
    let left: Vec<(String, &str)> = world
        .left_out()
        .iter()
        .map(|(p, why)| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                why.as_str(),
            )
        })
        .collect();
    for (name, why) in [
        ("out-link", "a symbolic link"),
        ("in-link", "a symbolic link"),
        ("s.sock", "a socket"),
        ("pipe", "a FIFO"),
    ] {
        assert!(left.contains(&(name.to_string(), why)), "{name}: {left:?}");
    }
    assert!(world.summary().contains("left out:"), "{}", world.summary());
    assert_eq!(
        world.files(),
        2,
        "kept.txt and the latin-1 name: {}",
        world.summary()
    );
    let copy = world.root().join(dir.0.file_name().unwrap());
    assert_eq!(std::fs::read(copy.join(odd)).unwrap(), b"latin-1 name\n");
    assert!(
        std::fs::symlink_metadata(copy.join("out-link")).is_err(),
        "no link is copied"
    );
    s.exit().unwrap();
}

#[test]
fn a_link_planted_at_the_world_folder_is_refused_and_nothing_is_written_through_it() {
    let dir = common::TempDir::new("world-planted");
    let out = common::TempDir::new("world-planted-out");
    let victim = common::TempDir::new("world-planted-victim");
    std::fs::write(dir.0.join("notes.txt"), "notes\n").unwrap();
    let s = start_in(&dir.0, &["sh", "-c", "read line"]);
    let world = s.world().unwrap().unwrap();
    let options = ExportOptions {
        world: Some((world.map(), world.root().to_path_buf())),
        ..ExportOptions::default()
    };
    std::os::unix::fs::symlink(&victim.0, out.0.join("planted.world")).unwrap();
    let refused = write_world(&options, "planted", &out.0).unwrap_err().to_string();
    assert!(
        refused.contains("planted.world") && refused.contains("not a folder"),
        "{refused}"
    );
    assert_eq!(
        std::fs::read_dir(&victim.0).unwrap().count(),
        0,
        "nothing written through the link"
    );
    s.exit().unwrap();
}

#[test]
fn a_named_folder_holding_the_working_folder_is_copied_whole_and_nothing_outside_the_copy_is_touched() {
    use std::os::unix::fs::PermissionsExt;
    // `ls ..`: the folder the command names holds the session's own.
    let root = common::TempDir::new("world-parent");
    let dir = root.0.join("project");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(root.0.join("beside.txt"), "beside\n").unwrap();
    std::fs::set_permissions(root.0.join("beside.txt"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::write(dir.join("inside.txt"), "inside\n").unwrap();
    let s = start_in(&dir, &["sh", "-c", "ls ..; read line", "sh", ".."]);
    let world = s.world().unwrap().unwrap();
    // Copied into a temporary folder of its own, not into the folder it copies.
    assert!(
        !world.root().starts_with(&root.0)
            && world
                .root()
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("tuipilot-world-"),
        "{}",
        world.root().display()
    );
    // The folder named is copied under its own name, the session's inside it.
    let copy = world.root().join(root.0.file_name().unwrap());
    assert_eq!(
        std::fs::read_to_string(copy.join("beside.txt")).unwrap(),
        "beside\n"
    );
    assert_eq!(
        std::fs::read_to_string(copy.join("project/inside.txt")).unwrap(),
        "inside\n"
    );
    // The real files are as they were: not copied onto themselves, not made private.
    let mode = std::fs::metadata(root.0.join("beside.txt"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o644);
    assert_eq!(
        world.map().cwd_under(Path::new("w.world")),
        Path::new("w.world")
            .join(root.0.file_name().unwrap())
            .join("project")
    );
    s.exit().unwrap();
}

#[test]
fn the_worlds_copy_is_removed_when_the_session_ends() {
    // Fails on the code before: a host, which ends with its session and runs no
    // destructor, left every world's copy in the temporary folder.
    let dir = common::TempDir::new("world-removed");
    std::fs::write(dir.0.join("notes.txt"), "notes\n").unwrap();
    let s = start_in(&dir.0, &["sh", "-c", "read line"]);
    let copy = s.world().unwrap().unwrap().root().to_path_buf();
    assert!(copy.join(dir.0.file_name().unwrap()).join("notes.txt").is_file());
    s.exit().unwrap();
    assert!(
        !copy.exists(),
        "{} is left after the session ended",
        copy.display()
    );
}

#[test]
fn an_earlier_exports_world_in_the_folder_is_copied_empty_not_inside_the_new_one() {
    // Fails on the code before: each export made in the session's folder carried the last
    // one's world inside its own.
    let dir = common::TempDir::new("world-earlier");
    std::fs::write(dir.0.join("notes.txt"), "notes\n").unwrap();
    std::fs::write(dir.0.join("menu.tape"), "Type \"x\"\n").unwrap();
    std::fs::create_dir_all(dir.0.join("menu.world/project")).unwrap();
    std::fs::write(dir.0.join("menu.world/project/big.txt"), "an earlier copy\n").unwrap();
    // A folder named like a world with no tape beside it is the user's: copied whole.
    std::fs::create_dir_all(dir.0.join("old.world")).unwrap();
    std::fs::write(dir.0.join("old.world/kept.txt"), "kept\n").unwrap();
    let s = start_in(&dir.0, &["sh", "-c", "read line"]);
    let world = s.world().unwrap().unwrap();
    let copy = world.root().join(dir.0.file_name().unwrap());
    assert!(copy.join("notes.txt").is_file() && copy.join("menu.tape").is_file());
    assert!(copy.join("menu.world").is_dir(), "the folder is there");
    assert_eq!(
        std::fs::read_dir(copy.join("menu.world")).unwrap().count(),
        0,
        "and empty"
    );
    assert!(copy.join("old.world/kept.txt").is_file());
    assert!(
        world.summary().contains("the world of the export") && world.summary().contains("copied empty"),
        "{}",
        world.summary()
    );
    s.exit().unwrap();
}

#[test]
fn a_program_in_the_folder_and_the_modes_and_dates_it_lists_replay_as_the_session_saw_them() {
    // Fails on the code before: the copy made every file 0600 and dated it the day it was
    // copied, so `./list.sh` could not be started in a replay, and a listing's modes (and,
    // a day later, its dates) were the copy's.
    use std::os::unix::fs::PermissionsExt;
    let dir = common::TempDir::new("world-modes");
    std::fs::create_dir_all(dir.0.join("sub")).unwrap();
    std::fs::write(
        dir.0.join("list.sh"),
        "#!/bin/sh\nls -l --time-style=+%d.%m.%Y data.txt sub\nprintf 'listed\\n'\nread done\n",
    )
    .unwrap();
    std::fs::write(dir.0.join("data.txt"), "data\n").unwrap();
    std::fs::write(dir.0.join("sub/old.txt"), "old\n").unwrap();
    let dated = |path: &str, mode: u32, secs: u64| {
        let path = dir.0.join(path);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        let times = std::fs::FileTimes::new().set_accessed(when).set_modified(when);
        std::fs::File::open(&path).unwrap().set_times(times).unwrap();
    };
    dated("list.sh", 0o755, 981_158_400);
    dated("data.txt", 0o640, 981_244_800);
    dated("sub/old.txt", 0o444, 981_331_200);
    dated("sub", 0o750, 981_417_600);
    let command = ["./list.sh"];
    let s = start_in(&dir.0, &command);
    s.apply(&wait(WaitFor::Text("^listed$".into()))).unwrap();
    let screen = s.text();
    assert!(
        screen.contains("-rw-r----- ") && screen.contains("04.02.2001 data.txt"),
        "{screen}"
    );
    s.apply(&Operation::capture_text()).unwrap();
    let out = common::TempDir::new("world-modes-out");
    let tape = export_with_world(&s, &command, &dir.0, &out.0, "modes");
    s.exit().unwrap();
    let snap = std::fs::read_to_string(out.0.join("modes.snap")).unwrap();
    assert!(snap.contains("05.02.2001 old.txt"), "{snap}");
    replays_three_times(&out.0, "modes", &tape);
}
