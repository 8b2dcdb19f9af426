//! Rewriting the parameters of sequences the gap layer passes on changed: SGR without the
//! underline colour vt100 misreads, and REP's count read without overflow.

/// REP's count: its first parameter (default and 0 mean 1), saturating instead of
/// overflowing.
pub(super) fn repeat_param(params: &[u8]) -> u64 {
    let first = params
        .split(|&b| b == b';' || b == b':')
        .next()
        .unwrap_or_default();
    let n = first.iter().filter(|b| b.is_ascii_digit()).fold(0u64, |n, &d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    });
    n.max(1)
}

/// Removes SGR 58 (underline colour, with its `5;n` / `2;r;g;b` arguments) and 59 from
/// an SGR parameter string. Returns `None` when nothing was removed.
pub(super) fn strip_underline_colour(params: &[u8]) -> Option<String> {
    // Nearly every SGR has neither: decide that without building strings.
    if !params.windows(2).any(|w| w == b"58" || w == b"59") {
        return None;
    }
    let text = std::str::from_utf8(params).ok()?;
    if !text.split([';', ':']).any(|p| p == "58" || p == "59") {
        return None;
    }
    let items: Vec<&str> = text.split(';').collect();
    let mut kept: Vec<&str> = Vec::with_capacity(items.len());
    let mut removed = false;
    let mut i = 0;
    while i < items.len() {
        let item = items[i];
        // Extended colours take their arguments as separate items: keep 38/48 whole so
        // an argument that happens to be 58 is not mistaken for SGR 58.
        let span = match (item, items.get(i + 1).copied()) {
            ("38" | "48" | "58", Some("5")) => 3,
            ("38" | "48" | "58", Some("2")) => 5,
            _ => 1,
        };
        let span = span.min(items.len() - i);
        let is_underline_colour = item == "58" || item == "59" || item.starts_with("58:");
        if is_underline_colour {
            removed = true;
        } else {
            kept.extend_from_slice(&items[i..i + span]);
        }
        i += span;
    }
    removed.then(|| kept.join(";"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn underline_colour_is_removed() {
        assert_eq!(strip_underline_colour(b"1;31"), None);
        assert_eq!(strip_underline_colour(b"58;5;1").as_deref(), Some(""));
        assert_eq!(
            strip_underline_colour(b"4;58;2;255;0;0;1").as_deref(),
            Some("4;1")
        );
        assert_eq!(strip_underline_colour(b"58:2::1:2:3;32").as_deref(), Some("32"));
        assert_eq!(strip_underline_colour(b"59;7").as_deref(), Some("7"));
        assert_eq!(strip_underline_colour(b"38;5;58"), None);
        assert_eq!(strip_underline_colour(b"38;5;58;59").as_deref(), Some("38;5;58"));
    }
}
