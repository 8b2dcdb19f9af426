//! Which optional programs, Python modules and fonts this repository's tests can use, as
//! attributes that build a test ignored, with the reason, where one is missing.
//!
//! ```text
//! use tuipilot_testenv::needs;
//!
//! #[needs(vim)]
//! #[test]
//! fn vim_saves_a_file() { /* … */ }
//! ```
//!
//! The attribute goes above `#[test]`: the test harness reads `#[ignore]` when `#[test]` is
//! expanded, so one added below it would be too late (the test would run, and fail, where
//! vim is missing). Put below, it is a compile error that says so.
//!
//! Where vim is missing the test is compiled as `#[ignore = "needs vim (.ci/run installs
//! it)"]`, so `cargo test` counts it as ignored and says why, never as passed; where `CI` is
//! set, `tests/environment.rs` fails on anything missing (`missing!()`), so CI cannot stay
//! green without having run them.
//!
//! What is found is decided by `build.rs` when the tests are built; this crate is never
//! published, and the published packages reach it only as a path-only dev-dependency, so a
//! user's build of tuipilot looks at nothing on their machine.

use proc_macro::{Delimiter, TokenStream, TokenTree};

include!(concat!(env!("OUT_DIR"), "/found.rs"));

/// Builds the test it is put on ignored, with the reason, unless every requirement named is
/// there: `#[needs(vim)]`, `#[needs(chromium, noto)]`. The names are those of `build.rs`'s
/// table; an unknown one is a compile error that lists them.
#[proc_macro_attribute]
pub fn needs(args: TokenStream, item: TokenStream) -> TokenStream {
    if let Err(message) = above_test("#[needs(…)]", &item) {
        return compile_error(&message);
    }
    let names = match requirement_names(args) {
        Ok(names) => names,
        Err(message) => return compile_error(&message),
    };
    let mut missing = Vec::new();
    for name in &names {
        match OPTIONAL.iter().find(|(known, _, _)| known == name) {
            Some((_, what, present)) => {
                if !present {
                    missing.push(*what);
                }
            }
            None => {
                let known: Vec<&str> = OPTIONAL.iter().map(|(known, _, _)| *known).collect();
                return compile_error(&format!(
                    "#[needs({name})]: no optional requirement is called `{name}`; the known ones are {} (tests/testenv/build.rs)",
                    known.join(", ")
                ));
            }
        }
    }
    if missing.is_empty() {
        return item;
    }
    let them = if missing.len() == 1 { "it" } else { "them" };
    ignored(
        &format!("needs {} (.ci/run installs {them})", missing.join(" and ")),
        item,
    )
}

/// Builds the test it is put on ignored unless `CI` was set when the tests were built: for
/// the tests that check a CI machine.
#[proc_macro_attribute]
pub fn on_ci(args: TokenStream, item: TokenStream) -> TokenStream {
    if !args.is_empty() {
        return compile_error("#[on_ci] takes no arguments");
    }
    if let Err(message) = above_test("#[on_ci]", &item) {
        return compile_error(&message);
    }
    if CI {
        item
    } else {
        ignored(
            "checks a CI machine: runs where CI was set when the tests were built",
            item,
        )
    }
}

/// What is missing, as a `&[&str]` of what a reader is told ("tmux", "Python's Textual"):
/// `tuipilot_testenv::missing!()`.
#[proc_macro]
pub fn missing(args: TokenStream) -> TokenStream {
    if !args.is_empty() {
        return compile_error("missing!() takes no arguments");
    }
    let list: Vec<String> = OPTIONAL
        .iter()
        .filter(|(_, _, present)| !present)
        .map(|(_, what, _)| format!("{what:?}"))
        .collect();
    parse(&format!(
        "{{ let missing: &[&str] = &[{}]; missing }}",
        list.join(", ")
    ))
}

/// The names in `#[needs(a, b)]`: identifiers separated by commas.
fn requirement_names(args: TokenStream) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    let mut expect_name = true;
    for token in args {
        match (&token, expect_name) {
            (TokenTree::Ident(ident), true) => {
                names.push(ident.to_string());
                expect_name = false;
            }
            (TokenTree::Punct(punct), false) if punct.as_char() == ',' => expect_name = true,
            (TokenTree::Group(group), _) if group.delimiter() == Delimiter::None => {
                names.extend(requirement_names(group.stream())?);
                expect_name = false;
            }
            _ => {
                return Err(format!(
                    "#[needs(…)] takes names separated by commas, like #[needs(chromium, noto)]; `{token}` is not one"
                ));
            }
        }
    }
    if names.is_empty() {
        return Err("#[needs(…)] names what the test needs, like #[needs(vim)]".to_string());
    }
    Ok(names)
}

/// Whether `item` still carries its test attribute (`#[test]`, `#[tokio::test]`): only then
/// can an `#[ignore]` added before it be seen by the harness.
fn above_test(attribute: &str, item: &TokenStream) -> Result<(), String> {
    let mut tokens = item.clone().into_iter().peekable();
    while let Some(token) = tokens.next() {
        let TokenTree::Punct(punct) = &token else {
            continue;
        };
        if punct.as_char() != '#' {
            continue;
        }
        if let Some(TokenTree::Group(group)) = tokens.peek() {
            let last = group.stream().into_iter().last();
            if group.delimiter() == Delimiter::Bracket
                && matches!(last, Some(TokenTree::Ident(ident)) if ident.to_string() == "test")
            {
                return Ok(());
            }
        }
    }
    Err(format!(
        "put {attribute} above #[test]: the test harness reads #[ignore] when it expands #[test], so below it the test would run where what it needs is missing"
    ))
}

/// `item` with `#[ignore = reason]` before it.
fn ignored(reason: &str, item: TokenStream) -> TokenStream {
    let mut out = parse(&format!("#[ignore = {reason:?}]"));
    out.extend(item);
    out
}

fn compile_error(message: &str) -> TokenStream {
    parse(&format!("compile_error!({message:?});"))
}

fn parse(source: &str) -> TokenStream {
    source
        .parse()
        .unwrap_or_else(|error| panic!("tuipilot-testenv wrote invalid Rust `{source}`: {error}"))
}
