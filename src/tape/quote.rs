//! Text written into a tape: the one writer for every string, word, regex and comment an
//! export puts into a tape, and the reader of the one string form that can hold any text.
//!
//! A VHS string (`"…"`, `'…'`, `` `…` ``) has no escapes and ends at its line's end, so it
//! cannot hold a line break, a carriage return or all three quote kinds at once; a text
//! that a program printed or a person pasted can hold all of them. Written raw, such text
//! became tape commands that ran when the export was replayed. So an export writes a VHS
//! string only where the text fits one as it is, and otherwise the escaped form that is
//! ours: `$"…"` (or `$'…'`, `` $`…` ``), in which `\n`, `\r`, `\t`, `\e`, `\0`, `\\`,
//! `\"`, `\'`, `` \` ``, `\u{HEX}` and `\xHH` (one byte, for the words of a `Start` and
//! the input of a `Bytes`, which may be any bytes) stand for what they say and a line
//! break cannot appear. No tape VHS accepts holds `$"` (VHS rejects a `$` there), so the addition
//! changes nothing VHS reads.
//!
//! Characters that would hide or rearrange what a reader of the tape sees — controls,
//! line and paragraph separators, bidirectional overrides, zero-width characters — are
//! escaped wherever they appear, comments and regexes included: a tape reads as what it
//! does.

/// Whether `c` is escaped wherever an export writes it: a control character, a line or
/// paragraph separator, or a character that is invisible or reorders the text around it.
pub(crate) fn needs_escape(c: char) -> bool {
    c.is_control() || crate::snapshot::hides_or_reorders(c)
}

/// `c` as an escape inside `$"…"` (and in a comment, where it is only shown).
fn escape_char(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str(r"\n"),
        '\r' => out.push_str(r"\r"),
        '\t' => out.push_str(r"\t"),
        '\x1b' => out.push_str(r"\e"),
        '\0' => out.push_str(r"\0"),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// `text` as a tape string that reads back as exactly `text`: a plain VHS string in the
/// first quote kind it does not hold when nothing in it needs escaping, else `$"…"`.
pub(crate) fn tape_string(text: &str) -> String {
    let free_quote = ['"', '\'', '`'].into_iter().find(|q| !text.contains(*q));
    if let Some(quote) = free_quote.filter(|_| !text.chars().any(needs_escape)) {
        return format!("{quote}{text}{quote}");
    }
    let mut out = String::with_capacity(text.len() + 3);
    out.push_str("$\"");
    for c in text.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '"' => out.push_str("\\\""),
            c if needs_escape(c) => escape_char(c, &mut out),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `word` (an argument, a folder, an environment name or value: any bytes) as a tape string
/// that reads back as exactly those bytes: [`tape_string`] when it is UTF-8, else `$"…"`
/// with every byte that is not part of a UTF-8 character as `\xHH`.
pub(crate) fn tape_bytes(word: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(word) {
        return tape_string(text);
    }
    let mut out = String::from("$\"");
    for chunk in word.utf8_chunks() {
        let written = tape_string(chunk.valid());
        // The valid part's body, escaped as a `$"…"` string escapes it.
        let body = match written.strip_prefix("$\"") {
            Some(body) => body[..body.len() - 1].to_string(),
            None => chunk.valid().replace('\\', r"\\").replace('"', "\\\""),
        };
        out.push_str(&body);
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('"');
    out
}

/// `word` as one argument that reads back as exactly its bytes: a bare word where it lexes
/// as exactly one word, else a [`tape_bytes`] string.
pub(crate) fn tape_os_word(word: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    match word.to_str() {
        Some(text) => tape_word(text),
        None => tape_bytes(word.as_bytes()),
    }
}

/// `text` as one argument: a bare word where it lexes as exactly one word (a name such as
/// `HOME` or `report`), else a [`tape_string`].
pub(crate) fn tape_word(text: &str) -> String {
    let mut chars = text.chars();
    let word = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "._-%".contains(c));
    if word { text.to_string() } else { tape_string(text) }
}

/// A comment line, `# text`, that cannot end early: every line break and invisible
/// character in `text` is shown as its escape.
pub(crate) fn tape_comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push_str("# ");
    shown(text, &mut out);
    out
}

/// `text` with every character [`needs_escape`] names written as its escape (for
/// comments, in a tape or in Rust).
pub(crate) fn shown(text: &str, out: &mut String) {
    for c in text.chars() {
        if needs_escape(c) {
            escape_char(c, out);
        } else {
            out.push(c);
        }
    }
}

/// A regex as a tape writes it, `/…/` on one line: `/` escaped for the lexer, and every
/// character [`needs_escape`] names as the regex escape that matches it (`\n`, `\x{…}`),
/// so the pattern matches what it matched and the line holds nothing hidden.
pub(crate) fn tape_regex(re: &str) -> String {
    let mut out = String::with_capacity(re.len() + 2);
    out.push('/');
    for c in re.chars() {
        match c {
            '/' => out.push_str(r"\/"),
            '\n' => out.push_str(r"\n"),
            '\r' => out.push_str(r"\r"),
            '\t' => out.push_str(r"\t"),
            c if needs_escape(c) => out.push_str(&format!("\\x{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    // The lexer reads `\/` as a slash inside the regex, so a pattern ending in an escaped
    // backslash (`\\`) would swallow its closing slash: the last backslash is written as
    // the escape that matches it instead.
    let trailing = out.chars().rev().take_while(|c| *c == '\\').count();
    if trailing > 0 && trailing % 2 == 0 {
        out.truncate(out.len() - 2);
        out.push_str(r"\x{5c}");
    }
    out.push('/');
    out
}

/// The bytes of a `$"…"` string body (between its quotes, escapes as written), or what is
/// wrong with it. They are UTF-8 unless a `\xHH` escape made them otherwise.
pub(crate) fn unescape(body: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(body.len());
    let push = |out: &mut Vec<u8>, c: char| out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            push(&mut out, c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push(b'\n'),
            Some('r') => out.push(b'\r'),
            Some('t') => out.push(b'\t'),
            Some('e') => out.push(0x1b),
            Some('0') => out.push(0),
            Some(c @ ('\\' | '"' | '\'' | '`')) => push(&mut out, c),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                match u8::from_str_radix(&hex, 16) {
                    Ok(byte) if hex.len() == 2 && hex.chars().all(|c| c.is_ascii_hexdigit()) => {
                        out.push(byte)
                    }
                    _ => return Err(r"`\x` needs a byte's two hex digits, such as \xff".into()),
                }
            }
            Some('u') => {
                let rest = chars.as_str();
                let hex = rest
                    .strip_prefix('{')
                    .and_then(|r| r.split_once('}'))
                    .map(|(hex, _)| hex)
                    .filter(|hex| (1..=6).contains(&hex.len()));
                let Some(c) = hex
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .and_then(char::from_u32)
                else {
                    return Err(r"`\u` needs a character's hex code in braces, such as \u{1b}".into());
                };
                push(&mut out, c);
                chars = rest[hex.map_or(0, str::len) + 2..].chars();
            }
            Some(other) => {
                return Err(format!(
                    r#"`\{other}` is not an escape (a $-string knows \n \r \t \e \0 \\ \" \' \` \u{{HEX}} \xHH)"#
                ));
            }
            None => return Err(r"the string ends in a lone `\`".into()),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_stays_a_vhs_string_and_the_rest_is_escaped() {
        assert_eq!(tape_string("echo hi"), "\"echo hi\"");
        assert_eq!(tape_string("say \"hi\""), "'say \"hi\"'");
        assert_eq!(tape_string("it's \"`date`\""), r#"$"it's \"`date`\"""#);
        assert_eq!(tape_string("a\nb\r\x1b"), r#"$"a\nb\r\e""#);
        assert_eq!(tape_string("\u{202e}x"), r#"$"\u{202e}x""#);
    }

    #[test]
    fn every_written_string_reads_back_as_itself() {
        for text in ["", "\\", "\\\"", "a\\u{41}", "\u{10ffff}", "\0\t`'\"", "x\\n"] {
            let written = tape_string(text);
            let body = written
                .strip_prefix("$\"")
                .and_then(|w| w.strip_suffix('"'))
                .map(|b| String::from_utf8(unescape(b).unwrap()).unwrap())
                .unwrap_or_else(|| written[1..written.len() - 1].to_string());
            assert_eq!(body, text, "{written}");
        }
    }

    #[test]
    fn bad_escapes_say_what_is_wrong() {
        assert!(unescape(r"\q").unwrap_err().contains(r"`\q` is not an escape"));
        assert!(unescape(r"\u{110000}").is_err());
        assert!(unescape(r"\u{}").is_err());
        assert!(unescape(r"\u41").is_err());
        assert!(unescape("\\").is_err());
        assert_eq!(unescape(r"\u{41}\u{1F600}!").unwrap(), "A\u{1f600}!".as_bytes());
        assert_eq!(unescape(r"a\xffb\x00").unwrap(), b"a\xffb\0");
        for bad in [r"\x", r"\xf", r"\xfg", r"\x+1"] {
            assert!(unescape(bad).unwrap_err().contains("two hex digits"), "{bad}");
        }
    }

    #[test]
    fn every_written_byte_string_reads_back_as_its_bytes() {
        for word in [
            &b"plain"[..],
            b"\xff",
            b"a\xc3",
            b"\x15touch x; exit #",
            b"q\"\\\xfe'`\n",
            b"\xe2\x80\xae\xff",
        ] {
            let written = tape_bytes(word);
            let body = match written.strip_prefix("$\"") {
                Some(rest) => unescape(&rest[..rest.len() - 1]).unwrap(),
                None => written.as_bytes()[1..written.len() - 1].to_vec(),
            };
            assert_eq!(body, word, "{written}");
            assert!(!written.contains('\n'), "{written}");
        }
    }

    #[test]
    fn comments_and_regexes_hold_no_line_break() {
        assert_eq!(tape_comment("a\nType 'x'"), r"# a\nType 'x'");
        assert_eq!(tape_regex("a/b\nc"), r"/a\/b\nc/");
        assert_eq!(tape_regex(r"C:\\"), r"/C:\x{5c}/");
        assert_eq!(tape_regex("\u{2028}"), r"/\x{2028}/");
    }
}
