//! The repository's tape corpus: every `tests/tapes/**/*.tape` is one test, run by the
//! library's harness (so libtest's filters, `--list` and `--exact` work on tape names).

fn main() {
    tuipilot::tape::harness("tests/tapes");
}
