//! The tape lexer: source text to tokens, each with its line and column.
//!
//! It reads what VHS's lexer reads, so any tape VHS accepts lexes the same: words
//! (letters, digits, `.`, `-`, `_`, `/`, `%`), numbers (digits and dots), strings in
//! `"…"`, `'…'` or `` `…` `` (no escapes; a string ends at its closing quote or at the end
//! of the line), regexes in `/…/` (our one addition: `\/` is a slash inside the regex),
//! JSON objects in `{…}`, single-character punctuation, and `#` comments to the end of the
//! line. Our other addition is the escaped string `$"…"` (`super::quote`), which can hold
//! any text; it must close on its line, and a bad escape in it is a token of its own that
//! the parser reports. Newlines separate nothing: several commands may share a line (each token knows
//! its line, for `Key`, whose key names run to the end of its line).

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Kind {
    /// A bare word: a keyword, a setting name, an unquoted path or value.
    Word,
    /// A quoted string (its text without the quotes; a `$"…"` string's escapes read).
    Str,
    /// A `$"…"` string that cannot be read (its text: what is wrong).
    BadStr,
    /// A `/regex/` (its text without the slashes).
    Regex,
    /// A number such as `500` or `0.5` (a unit, if any, is the following word).
    Number,
    /// A `{…}` JSON object, braces included.
    Json,
    /// One punctuation character: `@ + % = [ ] - ^ \` and anything else unrecognised.
    Punct(char),
    /// The end of the source.
    End,
}

/// A token and where it starts (1-based line and column, columns in characters).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Token {
    pub kind: Kind,
    pub text: String,
    pub line: u32,
    pub col: u32,
    /// Whether whitespace came right before it (`Wait+Line` vs `Wait +Line`).
    pub spaced: bool,
    /// A `$"…"` string whose `\xHH` escapes make bytes that are not UTF-8: those bytes
    /// (its `text` then shows them as `\xHH`). Only the words of `Start`, `Env` and the
    /// input of `Bytes` may be such bytes; every other command refuses the token.
    pub bytes: Option<Vec<u8>>,
}

/// The lexer's position in the source.
pub(super) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    line: u32,
    col: u32,
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "._-/%".contains(c)
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Lexer<'a> {
        // A byte-order mark is not part of the first command.
        let src = src.strip_prefix('\u{feff}').unwrap_or(src);
        Lexer {
            src,
            pos: 0,
            line: 1,
            col: 1,
        }
    }

    fn peek_char(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek_char()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    /// Skips whitespace and comments; says whether anything was skipped.
    fn skip_blank(&mut self) -> bool {
        let start = self.pos;
        while let Some(c) = self.peek_char() {
            if c.is_whitespace() {
                self.bump();
            } else if c == '#' {
                while self.peek_char().is_some_and(|c| c != '\n') {
                    self.bump();
                }
            } else {
                break;
            }
        }
        self.pos != start
    }

    /// Reads up to `end` (consumed) or the end of the line (not consumed).
    fn read_until(&mut self, end: char, escapable: bool) -> String {
        let mut out = String::new();
        while let Some(c) = self.peek_char() {
            if c == '\n' || c == '\r' {
                break;
            }
            self.bump();
            if c == end {
                break;
            }
            if escapable && c == '\\' && self.peek_char() == Some(end) {
                self.bump();
                out.push(end);
                continue;
            }
            out.push(c);
        }
        out
    }

    /// A `$"…"` string after its `$`: its text (and its bytes when they are not UTF-8), or
    /// why it cannot be read.
    fn escaped_string(&mut self) -> (Kind, String, Option<Vec<u8>>) {
        let Some(quote) = self.bump() else {
            return (Kind::BadStr, "the string has no quote".into(), None);
        };
        let mut body = String::new();
        loop {
            match self.peek_char() {
                None | Some('\n' | '\r') => {
                    return (
                        Kind::BadStr,
                        format!("the $-string is not closed on its line: end it with {quote}"),
                        None,
                    );
                }
                Some(c) if c == quote => {
                    self.bump();
                    break;
                }
                Some('\\') => {
                    body.push('\\');
                    self.bump();
                    if let Some(next) = self.peek_char().filter(|c| *c != '\n' && *c != '\r') {
                        body.push(next);
                        self.bump();
                    }
                }
                Some(c) => {
                    body.push(c);
                    self.bump();
                }
            }
        }
        match super::quote::unescape(&body).map(String::from_utf8) {
            Ok(Ok(text)) => (Kind::Str, text, None),
            Ok(Err(e)) => {
                let bytes = e.into_bytes();
                let shown = crate::operation::shown_word(std::os::unix::ffi::OsStrExt::from_bytes(&bytes));
                (Kind::Str, shown, Some(bytes))
            }
            Err(why) => (Kind::BadStr, why, None),
        }
    }

    /// The next token.
    pub fn next_token(&mut self) -> Token {
        let spaced = self.skip_blank() || self.pos == 0;
        let (line, col) = (self.line, self.col);
        let token = |kind, text| Token {
            kind,
            text,
            line,
            col,
            spaced,
            bytes: None,
        };
        let Some(c) = self.peek_char() else {
            return token(Kind::End, String::new());
        };
        match c {
            '"' | '\'' | '`' => {
                self.bump();
                token(Kind::Str, self.read_until(c, false))
            }
            '$' if self.src[self.pos + 1..].starts_with(['"', '\'', '`']) => {
                self.bump();
                let (kind, text, bytes) = self.escaped_string();
                Token {
                    bytes,
                    ..token(kind, text)
                }
            }
            '/' => {
                self.bump();
                token(Kind::Regex, self.read_until('/', true))
            }
            '{' => {
                let start = self.pos;
                let mut depth = 0usize;
                while let Some(c) = self.bump() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                token(Kind::Json, self.src[start..self.pos].to_string())
            }
            c if c.is_ascii_digit()
                || (c == '.' && self.src[self.pos + 1..].starts_with(|d: char| d.is_ascii_digit())) =>
            {
                let start = self.pos;
                while self.peek_char().is_some_and(|c| c.is_ascii_digit() || c == '.') {
                    self.bump();
                }
                token(Kind::Number, self.src[start..self.pos].to_string())
            }
            c if c.is_ascii_alphabetic() || c == '.' => {
                let start = self.pos;
                while self.peek_char().is_some_and(is_word_char) {
                    self.bump();
                }
                token(Kind::Word, self.src[start..self.pos].to_string())
            }
            c => {
                self.bump();
                token(Kind::Punct(c), c.to_string())
            }
        }
    }

    /// The line and column the next unread character is at.
    pub fn position(&self) -> (u32, u32) {
        (self.line, self.col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Kind, String)> {
        let mut lexer = Lexer::new(src);
        let mut out = Vec::new();
        loop {
            let t = lexer.next_token();
            if t.kind == Kind::End {
                return out;
            }
            out.push((t.kind, t.text));
        }
    }

    #[test]
    fn a_line_of_several_commands_lexes_into_words_numbers_and_strings() {
        assert_eq!(
            kinds(r#"Type "echo 'hi'" Sleep 500ms  Enter # done"#),
            vec![
                (Kind::Word, "Type".into()),
                (Kind::Str, "echo 'hi'".into()),
                (Kind::Word, "Sleep".into()),
                (Kind::Number, "500".into()),
                (Kind::Word, "ms".into()),
                (Kind::Word, "Enter".into()),
            ]
        );
    }

    #[test]
    fn regexes_json_paths_and_punctuation_are_tokens_of_their_own() {
        assert_eq!(
            kinds(r#"Wait+Screen@1.5s /a\/b$/ Output out/x.gif Set Theme {"a": {"b": 1}} Ctrl+["#),
            vec![
                (Kind::Word, "Wait".into()),
                (Kind::Punct('+'), "+".into()),
                (Kind::Word, "Screen".into()),
                (Kind::Punct('@'), "@".into()),
                (Kind::Number, "1.5".into()),
                (Kind::Word, "s".into()),
                (Kind::Regex, "a/b$".into()),
                (Kind::Word, "Output".into()),
                (Kind::Word, "out/x.gif".into()),
                (Kind::Word, "Set".into()),
                (Kind::Word, "Theme".into()),
                (Kind::Json, r#"{"a": {"b": 1}}"#.into()),
                (Kind::Word, "Ctrl".into()),
                (Kind::Punct('+'), "+".into()),
                (Kind::Punct('['), "[".into()),
            ]
        );
    }

    #[test]
    fn tokens_know_their_line_and_column_and_strings_end_at_the_line_end() {
        let mut lexer = Lexer::new("Enter\n  Type `unterminated\nTab");
        let enter = lexer.next_token();
        assert_eq!((enter.line, enter.col), (1, 1));
        let ty = lexer.next_token();
        assert_eq!((ty.line, ty.col), (2, 3));
        let s = lexer.next_token();
        assert_eq!((s.kind, s.text.as_str()), (Kind::Str, "unterminated"));
        let tab = lexer.next_token();
        assert_eq!((tab.text.as_str(), tab.line, tab.col), ("Tab", 3, 1));
    }

    #[test]
    fn a_dollar_string_reads_its_escapes_and_must_close_on_its_line() {
        assert_eq!(
            kinds(r#"Type $"a\n\"b\"" Copy $'\u{1b}[31m' Enter"#),
            vec![
                (Kind::Word, "Type".into()),
                (Kind::Str, "a\n\"b\"".into()),
                (Kind::Word, "Copy".into()),
                (Kind::Str, "\x1b[31m".into()),
                (Kind::Word, "Enter".into()),
            ]
        );
        let open = kinds("Type $\"abc\nEnter");
        assert_eq!(open[1].0, Kind::BadStr);
        assert!(open[1].1.contains("not closed on its line"), "{open:?}");
        assert_eq!(open[2], (Kind::Word, "Enter".into()));
        assert_eq!(kinds(r#"$"\q""#)[0].0, Kind::BadStr);
    }

    #[test]
    fn the_lexer_never_panics_on_odd_input() {
        for src in [
            "{",
            "/",
            "\"",
            ".",
            "..5",
            "\u{feff}Type",
            "é ü {{}",
            "\r\n\r",
            "5.5.5ms",
            "$",
            "$\"",
            "$'\\",
            "$`\\u{",
            "Type $\"\\u{d800}\"",
        ] {
            kinds(src);
        }
    }
}
