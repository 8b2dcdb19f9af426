//! Conformance: byte streams recorded from real programs (`fixtures/streams/`) are
//! replayed through the engine and through tmux, and the screens must read the same.
//!
//! Regenerate the recordings with
//! `cargo test --test conformance -- --ignored record_streams`.

use tuipilot_testenv::needs;
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use tuipilot::{Session, Terminal};

fn streams_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/streams")
}

/// `NAME.COLSxROWS.bin` → (cols, rows)
fn size_from_name(path: &Path) -> (u16, u16) {
    let stem = path.file_stem().unwrap().to_str().unwrap();
    let size = stem.rsplit('.').next().unwrap();
    let (c, r) = size.split_once('x').expect("NAME.COLSxROWS.bin");
    (c.parse().unwrap(), r.parse().unwrap())
}

fn engine_screen(bytes: &[u8], cols: u16, rows: u16) -> Vec<String> {
    let mut term = Terminal::new(cols, rows).unwrap();
    term.process(bytes);
    term.snapshot().rows().to_vec()
}

/// Replays `file` inside a detached tmux of the same size and captures the pane.
fn tmux_screen(file: &Path, cols: u16, rows: u16) -> Vec<String> {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let socket = format!(
        "tuipilot-conformance-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let tmux = |args: &[&str]| {
        let out = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    // Raw output mode so the recorded CR/LF pairs are not translated a second time.
    let script = format!(
        "stty raw -echo; cat '{}'; tmux -L {socket} wait-for -S replayed; sleep 600",
        file.display()
    );
    tmux(&[
        "new-session",
        "-d",
        "-x",
        &cols.to_string(),
        "-y",
        &rows.to_string(),
        "-s",
        "replay",
        &script,
    ]);
    tmux(&["wait-for", "replayed"]);
    let text = tmux(&["capture-pane", "-p", "-t", "replay"]);
    tmux(&["kill-server"]);
    let mut lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
    lines.resize(usize::from(rows), String::new());
    lines
}

/// Box-drawing characters back to the DEC special graphics letters they came from.
fn to_acs_letters(row: &str) -> String {
    const PAIRS: &[(char, char)] = &[
        ('┘', 'j'),
        ('┐', 'k'),
        ('┌', 'l'),
        ('└', 'm'),
        ('┼', 'n'),
        ('─', 'q'),
        ('├', 't'),
        ('┤', 'u'),
        ('┴', 'v'),
        ('┬', 'w'),
        ('│', 'x'),
        ('◆', '`'),
        ('▒', 'a'),
        ('°', 'f'),
        ('±', 'g'),
        ('≤', 'y'),
        ('≥', 'z'),
        ('π', '{'),
        ('≠', '|'),
        ('£', '}'),
        ('·', '~'),
    ];
    row.chars()
        .map(|c| PAIRS.iter().find(|(u, _)| *u == c).map_or(c, |(_, a)| *a))
        .collect()
}

#[needs(tmux)]
#[test]
fn recorded_streams_read_the_same_as_in_tmux() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(streams_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "expected the recorded streams in fixtures/streams"
    );
    let mut failures = Vec::new();
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let (cols, rows) = size_from_name(file);
        // tmux's capture prints DEC line-drawing cells as their ASCII letters (`lqqk`),
        // which we translate to box drawing; compare in tmux's spelling.
        let ours: Vec<String> = engine_screen(&bytes, cols, rows)
            .iter()
            .map(|r| to_acs_letters(r))
            .collect();
        let theirs = tmux_screen(file, cols, rows);
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            if a != b {
                failures.push(format!(
                    "{}: row {i}\n  ours: {a:?}\n  tmux: {b:?}",
                    file.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn recorded_streams_survive_any_chunking() {
    // The same stream fed in small odd-sized pieces gives the same screen.
    for entry in std::fs::read_dir(streams_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "bin") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let (cols, rows) = size_from_name(&path);
        let whole = engine_screen(&bytes, cols, rows);
        let mut term = Terminal::new(cols, rows).unwrap();
        for chunk in bytes.chunks(7) {
            term.process(chunk);
        }
        assert_eq!(term.snapshot().rows(), whole.as_slice(), "{}", path.display());
    }
}

/// Drives each program through a short scripted session and saves its raw output.
#[test]
#[ignore = "regenerates fixtures/streams; run by hand"]
fn record_streams() {
    let dir = streams_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let work = common::TempDir::new("record");
    let save = |name: &str, s: &Session| {
        let (cols, rows) = s.size();
        std::fs::write(dir.join(format!("{name}.{cols}x{rows}.bin")), s.output_bytes()).unwrap();
    };

    let s = common::bash().cwd(&work.0).spawn().unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    s.send_text("printf '\\033[1;31mred\\033[0m \\033[42mgreen bg\\033[0m\\n'; seq 1 40; echo $((2**40))\r")
        .unwrap();
    s.wait_for_text("^1099511627776$").unwrap();
    s.wait_stable(Duration::from_millis(200)).unwrap();
    save("bash", &s);

    let file = work.0.join("doc.txt");
    std::fs::write(
        &file,
        (1..=60)
            .map(|i| format!("row {i} of the document\n"))
            .collect::<String>(),
    )
    .unwrap();
    let s = Session::builder("vim")
        .args(["-u", "NONE", "-i", "NONE", "-N", "-n"])
        .arg(&file)
        .spawn()
        .unwrap();
    s.wait_for_text("doc.txt").unwrap();
    s.send_text("10Gdd").unwrap();
    s.send_text("Oinserted line").unwrap();
    s.press("Esc").unwrap();
    s.send_text(":set number\r").unwrap();
    s.wait_for_text(r"^\s+10 inserted line").unwrap();
    s.wait_stable(Duration::from_millis(200)).unwrap();
    save("vim", &s);

    let s = Session::builder("less")
        .arg(&file)
        .env("LESS", "")
        .spawn()
        .unwrap();
    s.wait_for_text("^row 1 of").unwrap();
    s.send_text("/row 42\r").unwrap();
    s.wait_for_text("^row 42 of").unwrap();
    s.wait_stable(Duration::from_millis(200)).unwrap();
    save("less", &s);

    let s = Session::builder("dialog")
        .args(common::DIALOG_MENU)
        .spawn()
        .unwrap();
    s.wait_for_text("Pick a fruit").unwrap();
    s.press("Down").unwrap();
    s.wait_stable(Duration::from_millis(200)).unwrap();
    save("dialog", &s);

    let s = Session::builder("python3")
        .args([
            "-c",
            "from prompt_toolkit import prompt\nprint('answer=' + prompt('name? ', default='tui'))",
        ])
        .spawn()
        .unwrap();
    s.wait_for_text("^name\\? tui").unwrap();
    s.send_text("pilot").unwrap();
    s.press("Enter").unwrap();
    s.wait_exit().unwrap();
    save("prompt_toolkit", &s);

    let s = common::fixture_session("colors").spawn().unwrap();
    s.wait_exit().unwrap();
    save("colors", &s);
}

/// Emoji, flags, ZWJ sequences, VS15/VS16, skin tones, CJK, combining marks, and East
/// Asian ambiguous, halfwidth and fullwidth characters: one per row, each followed by
/// `|`, then `#` at column 30 and a second `#` placed by the cursor after a tab stop, so
/// any cell the width rules disagree on moves the `|` or swallows a `#`.
const WIDTH_CORPUS: &[&str] = &[
    "😀",
    "🇯🇵",
    "👨\u{200D}👩\u{200D}👧",
    "🏳\u{FE0F}\u{200D}🌈",
    "👩\u{200D}💻",
    "👍🏽",
    "✔\u{FE0F}",
    "❤\u{FE0F}",
    "☀\u{FE0E}",
    "⌚",
    "漢字",
    "한글",
    "ｱｲｳ",
    "ＡＢ",
    "e\u{301}a\u{308}",
    "สวัสดี",
    "①±Ω←",
    "a\u{200B}b",
    "\u{1F1EF}",
    "\u{2764}",
];

#[needs(tmux)]
#[test]
fn cell_widths_match_tmux_on_emoji_flags_zwj_cjk_and_marks() {
    let (cols, rows) = (40u16, WIDTH_CORPUS.len() as u16 + 2);
    let mut stream = Vec::new();
    for (row, text) in WIDTH_CORPUS.iter().enumerate() {
        stream.extend_from_slice(format!("\x1b[{};1H{text}|\x1b[30G#\t#", row + 1).as_bytes());
    }
    // A row that fills the screen's width exactly after a VS16 character: it must not wrap.
    let full = format!("✔\u{FE0F}{}|", "x".repeat(usize::from(cols) - 2));
    stream.extend_from_slice(format!("\x1b[{};1H{full}", rows - 1).as_bytes());
    let dir = common::TempDir::new("widths");
    let file = dir.0.join("widths.bin");
    std::fs::write(&file, &stream).unwrap();
    let ours = engine_screen(&stream, cols, rows);
    let theirs = tmux_screen(&file, cols, rows);
    let differ: Vec<String> = ours
        .iter()
        .zip(&theirs)
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .map(|(i, (a, b))| format!("row {i}\n  ours: {a:?}\n  tmux: {b:?}"))
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
