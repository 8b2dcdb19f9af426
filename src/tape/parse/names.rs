//! The names a tape may use — commands, settings, shells, window bars — and the
//! closest-name suggestion every "unknown …" error ends with.

/// The commands VHS has, as a tape spells them.
pub(super) const VHS_COMMANDS: &[&str] = &[
    "Output",
    "Require",
    "Set",
    "Env",
    "Type",
    "Sleep",
    "Wait",
    "Hide",
    "Show",
    "Screenshot",
    "Copy",
    "Paste",
    "Source",
    "Subtitle",
    "Ctrl",
    "Alt",
    "Shift",
    "ScrollUp",
    "ScrollDown",
    "Backspace",
    "Delete",
    "Insert",
    "Enter",
    "Space",
    "Tab",
    "Escape",
    "Up",
    "Down",
    "Left",
    "Right",
    "PageUp",
    "PageDown",
    "Home",
    "End",
];

/// The commands that are ours.
pub(super) const OUR_COMMANDS: &[&str] = &[
    "Key",
    "Expect",
    "ExpectNot",
    "ExpectExit",
    "Snapshot",
    "Mask",
    "Resize",
    "Mouse",
    "Focus",
    "Start",
    "With",
    "Bytes",
];

/// Every setting VHS has, and ours (`TapeTimeout`, `Isolated`, `ReactionBound`).
pub(super) const SETTINGS: &[&str] = &[
    "TapeTimeout",
    "Columns",
    "Rows",
    "Isolated",
    "ReactionBound",
    "Shell",
    "FontSize",
    "FontFamily",
    "Width",
    "Height",
    "Padding",
    "LetterSpacing",
    "LineHeight",
    "TypingSpeed",
    "Theme",
    "WaitTimeout",
    "WaitPattern",
    "Framerate",
    "PlaybackSpeed",
    "LoopOffset",
    "CursorBlink",
    "Margin",
    "MarginFill",
    "WindowBar",
    "WindowBarSize",
    "BorderRadius",
    "SubtitleFontSize",
    "SubtitleFontFamily",
    "SubtitleColor",
    "SubtitleBackground",
    "SubtitlePosition",
    "SubtitlePadding",
    "SubtitleBorderRadius",
];

/// The shells `Set Shell` knows (VHS's list).
pub(super) const SHELLS: &[&str] = &[
    "bash",
    "zsh",
    "fish",
    "nu",
    "osh",
    "xonsh",
    "pwsh",
    "powershell",
    "cmd",
];

pub(super) const WINDOW_BARS: &[&str] = &["Colorful", "ColorfulRight", "Rings", "RingsRight"];

/// How deep `Source` may nest.
pub(super) const MAX_SOURCE_DEPTH: usize = 16;

/// `` `word`: did you mean `Closest`? `` when something is close.
pub(super) fn did_you_mean(word: &str, choices: &[&str]) -> String {
    if let Some(exact) = choices.iter().find(|c| c.eq_ignore_ascii_case(word)) {
        return format!(": did you mean `{exact}`? (names are case-sensitive)");
    }
    let lower = word.to_ascii_lowercase();
    choices
        .iter()
        .map(|c| {
            (
                crate::keys::suggest::edit_distance(&lower, &c.to_ascii_lowercase()),
                c,
            )
        })
        .filter(|(d, c)| *d <= 2.max(c.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map_or_else(String::new, |(_, c)| format!(": did you mean `{c}`?"))
}
