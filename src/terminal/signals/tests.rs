use crate::Terminal;
use crate::operation::SignalReport;

fn after(bytes: &[u8]) -> (Terminal, SignalReport) {
    let mut t = Terminal::new(40, 6).unwrap();
    t.process(bytes);
    let report = SignalReport::of(&t);
    (t, report)
}

#[test]
fn osc_7_sets_the_working_directory_as_a_decoded_path() {
    let (_, report) = after(b"\x1b]7;file://host/home/me/My%20Docs\x1b\\");
    assert_eq!(report.cwd.as_deref(), Some("/home/me/My Docs"));
}

#[test]
fn osc_52_clipboard_writes_are_kept_decoded_and_reads_are_ignored() {
    let (mut t, report) = after(b"\x1b]52;c;aGVsbG8gd29ybGQ=\x07\x1b]52;c;?\x07");
    let clipboard = report.clipboard.unwrap();
    assert_eq!(
        (clipboard.selection.as_str(), clipboard.text.as_str()),
        ("c", "hello world")
    );
    assert_eq!(t.signals().clipboard_writes, 1);
    assert!(t.take_replies().is_empty(), "the clipboard is never read back");
}

#[test]
fn osc_8_links_report_their_text_and_cells_while_it_is_on_the_screen() {
    let (mut t, report) = after(b"see \x1b]8;;https://example.com/a\x1b\\the docs\x1b]8;;\x1b\\ now");
    assert_eq!(report.links.len(), 1);
    let link = &report.links[0];
    assert_eq!(link.uri, "https://example.com/a");
    assert_eq!(link.text, "the docs");
    assert_eq!((link.row, link.col, link.end_col), (0, 4, 12));
    // Once the text is overwritten the link is gone.
    t.process(b"\r\x1b[2K");
    assert!(SignalReport::of(&t).links.is_empty());
}

#[test]
fn notifications_bells_and_the_title_stack_are_kept() {
    let (mut t, report) = after(
        b"\x1b]9;build done\x07\x1b]777;notify;CI;all green\x07\x07\x07\x1b]2;first\x07\x1b[22t\x1b]2;second\x07",
    );
    assert_eq!(report.bells, 2);
    let notes: Vec<(&str, &str)> = report
        .notifications
        .iter()
        .map(|n| (n.title.as_str(), n.body.as_str()))
        .collect();
    assert_eq!(notes, [("", "build done"), ("CI", "all green")]);
    assert_eq!(report.title_stack, ["first"]);
    assert_eq!(t.title(), "second");
    t.process(b"\x1b[23t");
    assert_eq!(t.title(), "first", "a pop restores the pushed title");
    assert!(t.signals().title_stack.is_empty());
}

#[test]
fn shell_marks_give_the_last_commands_regions_and_exit_code() {
    let (mut t, report) = after(
        b"\x1b]133;A\x07$ \x1b]133;B\x07ls\r\n\x1b]133;C\x07a\r\nb\r\n\x1b]133;D;2\x07\x1b]133;A\x07$ \x1b]133;B\x07",
    );
    let last = report.last_command.unwrap();
    assert_eq!(last.exit_code, Some(2));
    assert_eq!(report.command_exit, Some(2));
    let rows = |r: Option<super::Rows>| r.map(|r| (r.start, r.end));
    assert_eq!(rows(last.prompt), Some((0, 1)));
    assert_eq!(rows(last.command), Some((0, 1)));
    assert_eq!(rows(last.output), Some((1, 3)));
    assert!(!last.scrolled_off);
    // A prompt redrawn with no command in between (`D` with no `C`) ends nothing.
    t.process(b"\x1b]133;D;0\x07");
    assert_eq!(t.signals().commands_finished, 1);
    // Scrolling moves the regions up with the text: two lines scroll off, `a` with them.
    t.process(b"\r\n\r\n\r\n\r\n");
    let last = SignalReport::of(&t).last_command.unwrap();
    assert_eq!(rows(last.output), Some((0, 1)));
    assert_eq!(t.snapshot().row(0), Some("b"));
    assert!(last.scrolled_off);
}
