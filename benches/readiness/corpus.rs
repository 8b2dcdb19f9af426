//! The readiness benchmark's corpus: each case a real program (or a fixture standing for a
//! kind of program), the input of each round, and the oracle its screen must satisfy once
//! the reaction is complete — with what a case needs made first (files, a git change).

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// A screen as an oracle reads it: the rows, and the cursor (row, col).
pub(crate) struct Screen {
    pub(crate) text: String,
    pub(crate) cursor: (u16, u16),
}

impl Screen {
    fn rows(&self) -> Vec<&str> {
        self.text.lines().collect()
    }
    fn has(&self, needle: &str) -> bool {
        self.text.contains(needle)
    }
    fn cursor_row(&self) -> &str {
        self.text
            .lines()
            .nth(usize::from(self.cursor.0))
            .unwrap_or("")
            .trim_end()
    }
}

pub(crate) type Oracle = Arc<dyn Fn(&Screen, usize) -> bool + Send + Sync>;

/// One step of a round's input: keys by tuipilot's names, or text.
#[derive(Clone)]
pub(crate) enum Step {
    Keys(&'static str),
    Text(String),
}

pub(crate) type Rounds = Box<dyn Fn(usize) -> Vec<Step>>;

pub(crate) struct Case {
    pub(crate) name: &'static str,
    /// The program and its arguments (`{dir}` is the case's folder).
    pub(crate) command: Vec<String>,
    pub(crate) env: Vec<(&'static str, String)>,
    /// Sent once before the rounds (as one send each, with a ready wait after).
    pub(crate) setup: Vec<Vec<Step>>,
    /// The input of round `n`.
    pub(crate) input: Rounds,
    pub(crate) oracle: Oracle,
    /// A program that draws on its own every this long.
    pub(crate) period: Option<Duration>,
    /// The reaction is deferred beyond the reaction bound on purpose.
    pub(crate) beyond_bound: bool,
    /// What must exist first (a folder's files), made in the case's folder.
    pub(crate) prepare: Option<fn(&Path)>,
    /// Not in the corpus the rules before readiness III were measured on (reported apart).
    pub(crate) new: bool,
}

fn keys(k: &'static str) -> Step {
    Step::Keys(k)
}

fn text(t: impl Into<String>) -> Step {
    Step::Text(t.into())
}

fn words(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

fn case(name: &'static str, command: &[&str], input: Rounds, oracle: Oracle) -> Case {
    Case {
        name,
        command: words(command),
        env: Vec::new(),
        setup: Vec::new(),
        input,
        oracle,
        period: None,
        beyond_bound: false,
        prepare: None,
        new: false,
    }
}

impl Case {
    fn setup(mut self, steps: Vec<Vec<Step>>) -> Case {
        self.setup = steps;
        self
    }
    fn env(mut self, key: &'static str, value: impl Into<String>) -> Case {
        self.env.push((key, value.into()));
        self
    }
    fn periodic(mut self, period: Duration) -> Case {
        self.period = Some(period);
        self
    }
    fn prepared(mut self, prepare: fn(&Path)) -> Case {
        self.prepare = Some(prepare);
        self
    }
    fn beyond_bound(mut self) -> Case {
        self.beyond_bound = true;
        self
    }
}

/// The same input every round.
fn every(steps: Vec<Step>) -> Rounds {
    Box::new(move |_| steps.clone())
}

/// `odd` on rounds 0, 2, 4…, `even` on 1, 3, 5….
fn alternate(first: Vec<Step>, second: Vec<Step>) -> Rounds {
    Box::new(move |n| if n % 2 == 0 { first.clone() } else { second.clone() })
}

/// The oracle `first` after rounds 0, 2, 4…, `second` after 1, 3, 5….
fn alternating(
    first: impl Fn(&Screen) -> bool + Send + Sync + 'static,
    second: impl Fn(&Screen) -> bool + Send + Sync + 'static,
) -> Oracle {
    Arc::new(move |s, n| if n % 2 == 0 { first(s) } else { second(s) })
}

/// The values of the column headed `header` on the rows below the header row, as numbers
/// (right-aligned: each value ends where the header does).
fn column(screen: &Screen, header: &str) -> Option<Vec<f64>> {
    let rows = screen.rows();
    let (at, head) = rows.iter().enumerate().find(|(_, r)| r.contains(header))?;
    let end = head[..head.find(header)?].chars().count() + header.chars().count();
    let values: Vec<f64> = rows[at + 1..]
        .iter()
        .filter_map(|row| {
            let chars: Vec<char> = row.chars().collect();
            let before: String = chars.get(..end)?.iter().collect();
            before.rsplit(' ').next()?.parse().ok()
        })
        .collect();
    (values.len() >= 3).then_some(values)
}

fn non_increasing(values: Option<Vec<f64>>) -> bool {
    values.is_some_and(|v| v.windows(2).all(|w| w[0] >= w[1]))
}

/// How many numbers from 1 to 100000 fzf's fuzzy match keeps for `query`: those holding
/// its characters in order.
fn matching(query: &str) -> usize {
    (1..=100_000)
        .filter(|n| {
            let mut digits = n.to_string().into_bytes().into_iter();
            query.bytes().all(|q| digits.any(|d| d == q))
        })
        .count()
}

/// Whether a row ends with `keys: N` (or has it followed by a space).
fn keys_seen(screen: &Screen, n: usize) -> bool {
    let want = format!("keys: {n}");
    screen
        .rows()
        .iter()
        .any(|r| r.trim_end().ends_with(&want) || r.contains(&format!("{want} ")))
}

fn count_of(screen: &Screen, needle: &str) -> usize {
    screen.text.matches(needle).count()
}

const PY_TOOLKIT_VI: &str =
    "from prompt_toolkit import prompt\nwhile True:\n    print('you said', prompt('pt> ', vi_mode=True))";
const PY_TOOLKIT_MENU: &str = "from prompt_toolkit import prompt\nfrom prompt_toolkit.completion import WordCompleter\nc = WordCompleter(['apple', 'apricot', 'avocado'])\nwhile True:\n    try:\n        print('you said', prompt('pt> ', completer=c, complete_while_typing=False))\n    except KeyboardInterrupt:\n        print('cancelled')";
const PY_TOOLKIT_APP: &str = "from prompt_toolkit import Application\nfrom prompt_toolkit.key_binding import KeyBindings\nfrom prompt_toolkit.layout import Layout\nfrom prompt_toolkit.widgets import Label\nn = [0]\nlabel = Label(text=lambda: 'count: %d' % n[0])\nkb = KeyBindings()\n@kb.add('+')\ndef _(e):\n    n[0] += 1\n@kb.add('q')\ndef _(e):\n    e.app.exit()\nApplication(layout=Layout(label), key_bindings=kb, full_screen=True).run()";
const PY_TEXTUAL: &str = "from textual.app import App\nfrom textual.widgets import Static\nclass Counter(App):\n    BINDINGS = [('plus_sign', 'more', 'more')]\n    n = 0\n    def compose(self):\n        yield Static('count: 0', id='c')\n    def on_key(self, event):\n        if event.character == '+':\n            self.n += 1\n            self.query_one('#c').update('count: %d' % self.n)\nCounter().run()";
const PY_HALFDELAY: &str = "import curses\ndef main(w):\n    curses.halfdelay(3)\n    keys = ticks = 0\n    while True:\n        c = w.getch()\n        if c == -1: ticks += 1\n        else: keys += 1\n        w.addstr(0, 0, 'keys: %d ticks: %d   ' % (keys, ticks)); w.refresh()\ncurses.wrapper(main)";
/// A program that draws every `PERIOD` seconds on its own (a clock, a spinner) and counts
/// keys at once.
const PY_PERIODIC: &str = "import sys, os, select, time, tty\nperiod = float(sys.argv[1])\ntty.setraw(0)\nkeys = 0\nframes = '|/-\\\\'\nn = 0\nnext_at = time.monotonic() + period\nwhile True:\n    r, _, _ = select.select([0], [], [], max(0, next_at - time.monotonic()))\n    if r:\n        os.read(0, 64); keys += 1\n    if time.monotonic() >= next_at:\n        n += 1; next_at += period\n    sys.stdout.write('\\r%s %s keys: %d ' % (frames[n % 4], time.strftime('%H:%M:%S'), keys)); sys.stdout.flush()";
fn pdb_script(dir: &Path) {
    let body: String = (0..200).map(|i| format!("v{i} = {i}\n")).collect();
    std::fs::write(dir.join("script.py"), body).expect("writing script.py");
}

/// Runs git with `args` in `dir`, as a committer of its own.
fn git_in(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args([
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(ok, "git {args:?} failed");
}

fn git_repo(dir: &Path) {
    let lines: Vec<String> = (0..2000).map(|i| format!("line {i}")).collect();
    std::fs::write(dir.join("file.txt"), lines.join("\n") + "\n").expect("writing file.txt");
    let git = |args: &[&str]| git_in(dir, args);
    git(&["init", "-q"]);
    git(&["add", "file.txt"]);
    git(&["commit", "-qm", "one"]);
    let changed: Vec<String> = (0..2000)
        .map(|i| {
            if i % 40 == 20 {
                format!("changed {i}")
            } else {
                format!("line {i}")
            }
        })
        .collect();
    std::fs::write(dir.join("file.txt"), changed.join("\n") + "\n").expect("writing file.txt");
}

fn numbers(dir: &Path) {
    let body: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    std::fs::write(dir.join("numbers.txt"), body).expect("writing numbers.txt");
}

fn lines_file(dir: &Path) {
    let body: String = (1..=200).map(|i| format!("line {i}\n")).collect();
    std::fs::write(dir.join("lines.txt"), body).expect("writing lines.txt");
}

/// A fixture program from `fixtures/`, built for this profile first.
fn fixture(name: &str) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(cargo)
        .args(["build", "--release", "-q", "-p", "tuipilot", "--example", name])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .is_ok_and(|s| s.success());
    assert!(built, "building the fixture {name} failed");
    let exe = std::env::current_exe().expect("the bench's path");
    let examples = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("examples"))
        .expect("target layout");
    examples.join(name).to_string_lossy().into_owned()
}

pub(crate) fn cases() -> Vec<Case> {
    let deferred = fixture("deferred");
    let htop_sorted = |by: &'static str| move |s: &Screen| non_increasing(column(s, by));
    fn vim(extra: &[&'static str]) -> Vec<&'static str> {
        let mut c = vec!["vim", "--clean", "-n", "-i", "NONE"];
        c.extend_from_slice(extra);
        c
    }
    let completion = |shell: &'static str, command: &[&str]| {
        let words = [
            ("ech", "echo"),
            ("whoa", "whoami"),
            ("dirn", "dirname"),
            ("basena", "basename"),
        ];
        case(
            shell,
            command,
            Box::new(move |n| vec![keys("C-u"), text(words[n % 4].0), keys("Tab")]),
            Arc::new(move |s: &Screen, n: usize| s.cursor_row().ends_with(&format!(" {}", words[n % 4].1))),
        )
    };
    let mut cases = vec![
        // htop: a sort, the tree, and its function keys' screens (Esc closes them: ncurses'
        // escape delay).
        case(
            "htop: M / P (sort)",
            &["htop"],
            alternate(vec![keys("M")], vec![keys("P")]),
            alternating(htop_sorted("MEM%"), htop_sorted("CPU%")),
        ),
        case(
            "htop: t (tree)",
            &["htop"],
            alternate(vec![keys("t")], vec![keys("t")]),
            alternating(|s| s.has("├─") || s.has("└─"), |s| !s.has("├─") && !s.has("└─")),
        ),
        case(
            "htop: F3 search / Esc",
            &["htop"],
            alternate(vec![keys("F3")], vec![keys("Esc")]),
            alternating(|s| s.has("Search:"), |s| !s.has("Search:")),
        ),
        case(
            "htop: F2 setup / Esc",
            &["htop"],
            alternate(vec![keys("F2")], vec![keys("Esc")]),
            alternating(|s| s.has("Meters"), |s| !s.has("Meters")),
        ),
        case(
            "htop: F6 sort menu / Esc",
            &["htop"],
            alternate(vec![keys("F6")], vec![keys("Esc")]),
            alternating(|s| s.has("Sort by"), |s| !s.has("Sort by")),
        ),
        case(
            "htop: u (user menu) / Esc",
            &["htop"],
            alternate(vec![keys("u")], vec![keys("Esc")]),
            alternating(|s| s.has("Show processes of:"), |s| !s.has("Show processes of:")),
        ),
        // top: sorts, the command line.
        case(
            "top: M / P (sort)",
            &["top", "-d", "3"],
            alternate(vec![keys("M")], vec![keys("P")]),
            alternating(
                |s| non_increasing(column(s, "%MEM")),
                |s| non_increasing(column(s, "%CPU")),
            ),
        ),
        case(
            "top: h (help) / Esc",
            &["top", "-d", "3"],
            alternate(vec![keys("h")], vec![keys("Esc")]),
            alternating(
                |s| s.has("Help for Interactive Commands"),
                |s| !s.has("Help for Interactive Commands"),
            ),
        ),
        // vim: Esc, : commands, a macro, a split.
        case(
            "vim: i x Esc",
            &vim(&[]),
            every(vec![keys("i"), text("x"), keys("Esc")]),
            Arc::new(|s: &Screen, n: usize| {
                !s.has("-- INSERT --") && !s.has("^[") && s.rows()[0] == "x".repeat(n + 1)
            }),
        ),
        case(
            "vim: :set nu / nonu",
            &vim(&["{dir}/lines.txt"]),
            alternate(
                vec![text(":set nu"), keys("Enter")],
                vec![text(":set nonu"), keys("Enter")],
            ),
            alternating(
                |s| s.rows()[0].starts_with("  1 line 1"),
                |s| s.rows()[0] == "line 1",
            ),
        )
        .prepared(lines_file),
        case(
            "vim: j (moving)",
            &vim(&["{dir}/lines.txt"]),
            every(vec![keys("j")]),
            Arc::new(|s: &Screen, n: usize| s.has(&format!("{},1 ", n + 2))),
        )
        .prepared(lines_file),
        case(
            "vim: @a (a macro)",
            &vim(&["{dir}/lines.txt"]),
            every(vec![text("@a")]),
            Arc::new(|s: &Screen, n: usize| count_of(s, "!") == n + 2),
        )
        .prepared(lines_file)
        .setup(vec![vec![text("qaA!"), keys("Esc"), text("jq")]]),
        case(
            "vim: :split / :only",
            &vim(&["{dir}/lines.txt"]),
            alternate(
                vec![text(":split"), keys("Enter")],
                vec![text(":only"), keys("Enter")],
            ),
            alternating(
                |s| count_of(s, "lines.txt") >= 2,
                |s| count_of(s, "line 1\n") == 1 && count_of(s, "lines.txt") <= 1,
            ),
        )
        .prepared(lines_file),
        // nano, emacs.
        case(
            "nano: typing",
            &["nano", "--ignorercfiles"],
            every(vec![text("x")]),
            Arc::new(|s: &Screen, n: usize| s.has(&"x".repeat(n + 1))),
        ),
        case(
            "nano: C-w search / C-c",
            &["nano", "--ignorercfiles"],
            alternate(vec![keys("C-w")], vec![keys("C-c")]),
            alternating(|s| s.has("Search:"), |s| !s.has("Search:")),
        ),
        case(
            "emacs: typing",
            &["emacs", "-nw", "-Q"],
            every(vec![text("x")]),
            Arc::new(|s: &Screen, n: usize| s.has(&"x".repeat(n + 1))),
        ),
        case(
            "emacs: C-x echoed after 1 s / C-g",
            &["emacs", "-nw", "-Q"],
            alternate(vec![keys("C-x")], vec![keys("C-g")]),
            alternating(
                |s| s.rows().last().is_some_and(|r| r.starts_with("C-x-")),
                // C-g after the echo: `Quit`, or `C-x C-g is undefined`.
                |s| {
                    s.rows()
                        .last()
                        .is_some_and(|r| r.starts_with("Quit") || r.contains("C-g is undefined"))
                },
            ),
        ),
        case(
            "emacs: M-x / C-g",
            &["emacs", "-nw", "-Q"],
            alternate(vec![keys("M-x")], vec![keys("C-g")]),
            alternating(
                |s| s.rows().last().is_some_and(|r| r.starts_with("M-x")),
                |s| s.rows().last().is_some_and(|r| r.starts_with("Quit")),
            ),
        ),
        // less: paging, search, follow mode.
        case(
            "less: Space",
            &["less", "{dir}/numbers.txt"],
            every(vec![keys("Space")]),
            Arc::new(|s: &Screen, n: usize| s.rows()[0] == (1 + 29 * (n + 1)).to_string()),
        )
        .prepared(numbers),
        case(
            "less: /search",
            &["less", "{dir}/numbers.txt"],
            Box::new(|n| vec![text(format!("/^{}$", 1000 * (n + 1) + 7)), keys("Enter")]),
            Arc::new(|s: &Screen, n: usize| s.rows()[0] == (1000 * (n + 1) + 7).to_string()),
        )
        .prepared(numbers),
        case(
            "less: F (follow) / C-c",
            &["less", "{dir}/numbers.txt"],
            alternate(vec![keys("F")], vec![keys("C-c")]),
            alternating(|s| s.has("Waiting for data"), |s| !s.has("Waiting for data")),
        )
        .prepared(numbers),
        // mc: its menu and help.
        case(
            "mc: F9 Down (a menu) / F10",
            &["mc", "--nosubshell"],
            alternate(vec![keys("F9"), keys("Down")], vec![keys("F10")]),
            alternating(|s| s.has("Listing format"), |s| !s.has("Listing format")),
        ),
        case(
            "mc: F1 help / F10",
            &["mc", "--nosubshell"],
            alternate(vec![keys("F1")], vec![keys("F10")]),
            alternating(|s| s.has("─ Help ─"), |s| !s.has("─ Help ─")),
        ),
        // fzf: the filter over a fixed list.
        case(
            "fzf: typing a query",
            &["fzf"],
            Box::new(|n| vec![text(((n % 9) + 1).to_string())]),
            Arc::new(|s: &Screen, n: usize| {
                let query: String = (0..=n).map(|i| ((i % 9) + 1).to_string()).collect();
                s.has(&format!("{}/100000", matching(&query)))
            }),
        )
        .env("FZF_DEFAULT_COMMAND", "seq 100000"),
        case(
            "fzf: query / C-u",
            &["fzf"],
            alternate(vec![text("12")], vec![keys("C-u")]),
            alternating(
                |s| s.has(&format!("{}/100000", matching("12"))),
                |s| s.has("100000/100000"),
            ),
        )
        .env("FZF_DEFAULT_COMMAND", "seq 100000"),
        // prompt_toolkit: vi mode's Esc, a completion menu, a full-screen app.
        case(
            "prompt_toolkit: vi Esc",
            &["python3", "-c", PY_TOOLKIT_VI],
            // Esc leaves insert mode on the last character, which `x` deletes.
            Box::new(|n| vec![text(format!("{n}zq")), keys("Esc"), text("x"), keys("Enter")]),
            Arc::new(|s: &Screen, n: usize| s.has(&format!("you said {n}z\n"))),
        ),
        case(
            "prompt_toolkit: completion menu / C-c",
            &["python3", "-c", PY_TOOLKIT_MENU],
            alternate(vec![text("a"), keys("Tab")], vec![keys("C-c")]),
            alternating(|s| s.has("apricot"), |s| !s.has("apricot") && s.has("cancelled")),
        ),
        case(
            "prompt_toolkit: full-screen app",
            &["python3", "-c", PY_TOOLKIT_APP],
            every(vec![text("+")]),
            Arc::new(|s: &Screen, n: usize| s.has(&format!("count: {}", n + 1))),
        ),
        case(
            "Textual app",
            &["python3", "-c", PY_TEXTUAL],
            every(vec![text("+")]),
            Arc::new(|s: &Screen, n: usize| s.has(&format!("count: {}", n + 1))),
        ),
        // Shells' completion, the Python REPL, pdb, git add -p, dialog.
        completion("bash: Tab completion", &["bash", "--norc", "--noprofile"]),
        completion("zsh: Tab completion", &["zsh", "-f"]),
        completion("fish: Tab completion", &["fish", "--no-config"]),
        case(
            "python3 REPL",
            &["python3", "-q"],
            Box::new(|n| vec![text(format!("{}*7", 1000 + n)), keys("Enter")]),
            Arc::new(|s: &Screen, n: usize| s.has(&((1000 + n) * 7).to_string())),
        ),
        case(
            "pdb: next",
            &["python3", "-m", "pdb", "{dir}/script.py"],
            every(vec![text("n"), keys("Enter")]),
            Arc::new(|s: &Screen, n: usize| {
                s.rows()
                    .iter()
                    .rev()
                    .find(|r| r.starts_with("->"))
                    .is_some_and(|r| *r == format!("-> v{} = {}", n + 1, n + 1))
            }),
        )
        .prepared(pdb_script),
        case(
            "git add -p: n",
            &["git", "add", "-p"],
            every(vec![text("n"), keys("Enter")]),
            Arc::new(|s: &Screen, n: usize| s.has(&format!("({}/50)", n + 2))),
        )
        .prepared(git_repo),
        case(
            "dialog: inputbox typing",
            &["dialog", "--inputbox", "name", "10", "60"],
            every(vec![text("y")]),
            Arc::new(|s: &Screen, n: usize| s.has(&"y".repeat(n + 1))),
        ),
        case(
            "dialog: menu Down",
            &[
                "dialog", "--menu", "pick", "20", "40", "12", "1", "one", "2", "two", "3", "three", "4",
                "four", "5", "five", "6", "six", "7", "seven", "8", "eight", "9", "nine", "10", "ten", "11",
                "eleven", "12", "twelve",
            ],
            Box::new(|_| vec![keys("Down")]),
            Arc::new(|_: &Screen, _: usize| true),
        ),
        // ncurses halfdelay, and programs that draw on their own.
        case(
            "curses, halfdelay(3)",
            &["python3", "-c", PY_HALFDELAY],
            every(vec![text("k")]),
            Arc::new(|s: &Screen, n: usize| keys_seen(s, n + 1)),
        )
        .periodic(Duration::from_millis(300)),
        case(
            "a clock (1 s)",
            &["python3", "-c", PY_PERIODIC, "1"],
            every(vec![text("k")]),
            Arc::new(|s: &Screen, n: usize| keys_seen(s, n + 1)),
        )
        .periodic(Duration::from_secs(1)),
        case(
            "a spinner (100 ms)",
            &["python3", "-c", PY_PERIODIC, "0.1"],
            every(vec![text("k")]),
            Arc::new(|s: &Screen, n: usize| keys_seen(s, n + 1)),
        )
        .periodic(Duration::from_millis(100)),
        // Fixtures: a refresh tick that applies keys, a debounce, one beyond the bound.
        case(
            "refresh tick 500 ms (applies at the tick)",
            &[&deferred, "--tick", "500"],
            every(vec![text("k")]),
            Arc::new(|s: &Screen, n: usize| s.has(&format!("applied: {}", "k".repeat(n + 1)))),
        )
        .periodic(Duration::from_millis(500)),
        case(
            "debounce 300 ms",
            &[&deferred, "--debounce", "300"],
            every(vec![text("k")]),
            Arc::new(|s: &Screen, n: usize| s.rows()[1] == format!("typed: {}", "k".repeat(n + 1))),
        ),
        case(
            "debounce 3 s (beyond the bound)",
            &[&deferred, "--debounce", "3000"],
            every(vec![text("k")]),
            Arc::new(|s: &Screen, n: usize| s.rows()[1] == format!("typed: {}", "k".repeat(n + 1))),
        ),
    ];
    // The dialog menu's highlight is a style; its oracle is the item's row in inverse.
    cases.retain(|c| c.name != "dialog: menu Down");
    for c in &mut cases {
        if c.name.starts_with("debounce 3 s") {
            c.beyond_bound = true;
        }
    }
    cases.extend(new_cases::cases());
    cases.extend(matrix_cases());
    cases
}

#[path = "new_cases.rs"]
mod new_cases;

#[path = "../../tests/common/reactions.rs"]
mod reactions;
use reactions::{Fixture, MECHANISMS, PLACES};

/// A row per language, mechanism and place: the key's reaction drawn 400 ms later
/// (`matrix` in the name; `TUIPILOT_READINESS_ONLY=matrix` runs these alone), and the
/// same with a 100 ms poller in the reading thread.
fn matrix_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for fixture in Fixture::ALL {
        for interference in [&[][..], &["--poller", "100"][..]] {
            for mechanism in MECHANISMS {
                for place in PLACES {
                    let suffix = if interference.is_empty() {
                        ""
                    } else {
                        ", poller 100 ms"
                    };
                    let name: &'static str = Box::leak(
                        format!(
                            "matrix {}: {mechanism} in {place}, 400 ms{suffix}",
                            fixture.name()
                        )
                        .into_boxed_str(),
                    );
                    let mut command = fixture.command();
                    command.extend([mechanism.to_string(), place.to_string(), "400".into()]);
                    command.extend(interference.iter().map(|a| a.to_string()));
                    let command: Vec<&str> = command.iter().map(String::as_str).collect();
                    out.push(case(
                        name,
                        &command,
                        every(vec![text("k")]),
                        Arc::new(|s: &Screen, n: usize| s.has(&format!("reacted {}", n + 1))),
                    ));
                }
            }
        }
    }
    out
}

impl Screen {
    pub(crate) fn of(snap: &tuipilot::Snapshot) -> Screen {
        let cursor = snap.cursor();
        Screen {
            text: snap.text(),
            cursor: (cursor.row, cursor.col),
        }
    }
}
