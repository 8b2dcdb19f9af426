//! The readiness benchmark's cases new to the corpus in readiness III — programs and
//! interactions outside the corpus the earlier rules were measured on — and what they need
//! made first.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::{Case, Screen, alternate, alternating, case, every, git_in, keys, lines_file, text};

fn long_file(dir: &Path) {
    let body: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.join("long.txt"), body).expect("writing long.txt");
}

/// Twenty small files in `tree/`, and `lines.txt` beside.
fn files_tree(dir: &Path) {
    let tree = dir.join("tree");
    std::fs::create_dir_all(&tree).expect("making tree/");
    for i in 1..=20 {
        std::fs::write(tree.join(format!("f{i:02}.txt")), format!("file {i}\n")).expect("writing a file");
    }
    lines_file(dir);
}

/// A git repository of 30 commits.
fn commits(dir: &Path) {
    let git = |args: &[&str]| git_in(dir, args);
    git(&["init", "-q"]);
    for i in 1..=30 {
        std::fs::write(dir.join("f"), format!("{i}\n")).expect("writing f");
        git(&["add", "f"]);
        git(&["commit", "-qm", &format!("commit number {i}")]);
    }
}

/// A Textual app whose `+` is drawn 400 ms later by `set_timer` (the event loop's timer,
/// beside Textual's input thread polling the terminal every 100 ms).
const PY_TEXTUAL_TIMER: &str = "from textual.app import App\nfrom textual.widgets import Static\nclass Later(App):\n    n = 0\n    def compose(self):\n        yield Static('shown: 0', id='c')\n    def on_key(self, event):\n        if event.character == '+':\n            self.n += 1\n            n = self.n\n            self.set_timer(0.4, lambda: self.query_one('#c').update('shown: %d' % n))\nLater().run()";

/// fzf's list for the preview case: twenty words, none matched by a query of another's.
const FZF_WORDS: &str =
    "printf '%s\\n' w01 w02 w03 w04 w05 w06 w07 w08 w09 w10 w11 w12 w13 w14 w15 w16 w17 w18 w19 w20";

/// Whether a row of `screen`, after a REPL's prompt if any, is `want`.
fn row_is(screen: &Screen, want: &str) -> bool {
    screen
        .rows()
        .iter()
        .any(|r| r.trim_start_matches("> ").trim_end() == want)
}

/// Real programs and interactions outside the corpus the earlier rules were measured on:
/// Go (micro, gdu, fzf's preview and reload), Node (its REPL's timers, a child, the thread
/// pool), Rust (dua), Python event loops (asyncio's REPL, Textual's `set_timer`, IPython,
/// bpython, ranger), C (neovim, w3m, calcurse, tig, gdb, GNU screen, watch, nmon).
pub(super) fn cases() -> Vec<Case> {
    let product = |n: usize| ((1000 + n) * 7).to_string();
    let row_holds = |s: &Screen, want: &str| s.rows().iter().any(|r| r.trim_end() == want);
    let mut out = vec![
        case(
            "neovim: i x Esc",
            &["nvim", "--clean", "-n", "-i", "NONE"],
            every(vec![keys("i"), text("x"), keys("Esc")]),
            Arc::new(|s: &Screen, n: usize| !s.has("-- INSERT --") && s.rows()[0] == "x".repeat(n + 1)),
        ),
        case(
            "neovim: j (moving)",
            &["nvim", "--clean", "-n", "-i", "NONE", "{dir}/lines.txt"],
            every(vec![keys("j")]),
            Arc::new(|s: &Screen, n: usize| s.has(&format!("{},1 ", n + 2))),
        )
        .prepared(lines_file),
        case(
            "micro: typing",
            &["micro", "{dir}/new.txt"],
            every(vec![text("x")]),
            Arc::new(|s: &Screen, n: usize| s.has(&"x".repeat(n + 1))),
        ),
        case(
            "micro: C-f find / Esc",
            &["micro", "{dir}/lines.txt"],
            alternate(vec![keys("C-f")], vec![keys("Esc")]),
            alternating(|s| s.has("Find (regex):"), |s| !s.has("Find (regex):")),
        )
        .prepared(lines_file),
        case(
            "gdu: ? help / Esc",
            &["gdu", "{dir}/tree"],
            alternate(vec![text("?")], vec![keys("Esc")]),
            alternating(|s| s.has("gdu help"), |s| !s.has("gdu help")),
        )
        .prepared(files_tree),
        case(
            "fzf: --preview (its own process group)",
            &["fzf", "--preview", "echo preview of {}"],
            Box::new(|n| vec![keys("C-u"), text(format!("w{:02}", n % 20 + 1))]),
            Arc::new(|s: &Screen, n: usize| {
                s.has(&format!("preview of w{:02}", n % 20 + 1)) && s.has("1/20")
            }),
        )
        .env("FZF_DEFAULT_COMMAND", FZF_WORDS),
        case(
            "fzf: change:reload (a child per key)",
            &["fzf", "--disabled", "--bind", "change:reload(sleep 0.2; seq {q})"],
            Box::new(|n| vec![keys("C-u"), text((10 + n).to_string())]),
            Arc::new(|s: &Screen, n: usize| s.has(&format!(" {0}/{0}", 10 + n))),
        )
        .env("FZF_DEFAULT_COMMAND", "seq 1"),
        case(
            "node REPL: expression",
            &["node"],
            Box::new(|n| vec![text(format!("{}*7", 1000 + n)), keys("Enter")]),
            Arc::new(move |s: &Screen, n: usize| row_is(s, &product(n))),
        ),
        case(
            "node REPL: setTimeout 400 ms",
            &["node"],
            Box::new(|n| {
                vec![
                    text(format!("void setTimeout(() => console.log('late', {n}), 400)")),
                    keys("Enter"),
                ]
            }),
            Arc::new(|s: &Screen, n: usize| row_is(s, &format!("late {n}"))),
        ),
        case(
            "node REPL: a child process (exec)",
            &["node"],
            Box::new(|n| {
                vec![
                    text(format!(
                        "void require('child_process').exec('sleep 0.2; echo kid $((1000+{n}))', (e, o) => console.log(o.trim()))"
                    )),
                    keys("Enter"),
                ]
            }),
            Arc::new(|s: &Screen, n: usize| row_is(s, &format!("kid {}", 1000 + n))),
        ),
        case(
            "node REPL: dns lookup (its thread pool)",
            &["node"],
            Box::new(|n| {
                vec![
                    text(format!(
                        "void require('dns').lookup('localhost', () => console.log('looked', {n}))"
                    )),
                    keys("Enter"),
                ]
            }),
            Arc::new(|s: &Screen, n: usize| row_is(s, &format!("looked {n}"))),
        ),
        case(
            "asyncio REPL: await sleep(0.3)",
            &["python3", "-m", "asyncio"],
            Box::new(|n| {
                vec![
                    text(format!("await asyncio.sleep(0.3); print({}*7)", 1000 + n)),
                    keys("Enter"),
                ]
            }),
            Arc::new(move |s: &Screen, n: usize| row_holds(s, &product(n))),
        ),
        case(
            "Textual: set_timer 400 ms",
            &["python3", "-c", PY_TEXTUAL_TIMER],
            every(vec![text("+")]),
            Arc::new(|s: &Screen, n: usize| s.has(&format!("shown: {}", n + 1))),
        ),
        case(
            "IPython: expression",
            &["ipython3", "--no-banner", "--colors=NoColor", "--no-confirm-exit"],
            Box::new(|n| vec![text(format!("{}*7", 1000 + n)), keys("Enter")]),
            Arc::new(move |s: &Screen, n: usize| s.has(&format!("Out[{}]: {}", n + 1, product(n)))),
        ),
        case(
            "bpython: expression",
            &["bpython"],
            Box::new(|n| vec![text(format!("{}*7", 1000 + n)), keys("Enter")]),
            Arc::new(move |s: &Screen, n: usize| row_holds(s, &product(n))),
        ),
        case(
            "ranger: j (moving)",
            &["ranger", "{dir}/tree"],
            every(vec![text("j")]),
            Arc::new(|s: &Screen, n: usize| s.rows()[0].trim_end().ends_with(&format!("/f{:02}.txt", n + 2))),
        )
        .prepared(files_tree),
        case(
            "w3m: Space (paging)",
            &["w3m", "{dir}/long.txt"],
            every(vec![keys("Space")]),
            Arc::new(|s: &Screen, n: usize| s.rows()[0] == format!("line {}", 1 + 28 * (n + 1))),
        )
        .prepared(long_file),
        case(
            "calcurse: ? help (less) / q",
            &["calcurse", "-D", "{dir}/cal"],
            alternate(vec![text("?")], vec![text("q")]),
            alternating(
                |s| s.has("calcurse Online Help"),
                |s| !s.has("calcurse Online Help"),
            ),
        ),
        case(
            "tig: j (moving)",
            &["tig"],
            every(vec![text("j")]),
            Arc::new(|s: &Screen, n: usize| s.has(&format!("commit {} of 30", n + 2))),
        )
        .prepared(commits),
        case(
            "gdb: print",
            &["gdb", "-q", "-nx"],
            Box::new(|n| vec![text(format!("print {}*7", 1000 + n)), keys("Enter")]),
            Arc::new(move |s: &Screen, n: usize| s.has(&format!("${} = {}", n + 1, product(n)))),
        ),
        case(
            "GNU screen: a command in bash",
            &["screen", "-q", "bash", "--norc", "--noprofile"],
            Box::new(|n| vec![text(format!("echo $(({}*7))", 1000 + n)), keys("Enter")]),
            Arc::new(move |s: &Screen, n: usize| row_holds(s, &product(n))),
        ),
        case(
            "watch: date (1 s)",
            &["watch", "-n", "1", "date"],
            every(vec![text("x")]),
            Arc::new(|s: &Screen, _: usize| s.has("Every 1.0s")),
        )
        .periodic(Duration::from_secs(1)),
        case(
            "nmon: c (CPU) / c",
            &["nmon"],
            alternate(vec![text("c")], vec![text("c")]),
            alternating(|s| s.has("CPU Utilisation"), |s| !s.has("CPU Utilisation")),
        )
        .beyond_bound(),
        case(
            "dua: ? help / ?",
            &["dua", "interactive", "{dir}/tree"],
            alternate(vec![text("?")], vec![text("?")]),
            alternating(|s| s.has("Pane control"), |s| !s.has("Pane control")),
        )
        .prepared(files_tree),
    ];
    for c in &mut out {
        c.new = true;
    }
    out
}
