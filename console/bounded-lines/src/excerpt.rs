//! Excerpts: what an error message quotes of a bad input.

/// How many characters of a bad input an error message quotes.
pub const QUOTE_CHARS: usize = 80;

/// At most [`QUOTE_CHARS`] characters of `s`, with `…` when cut and control characters
/// shown as U+FFFD: what an error message quotes of a bad input.
pub fn excerpt(s: &str) -> String {
    // A control character quoted back raw is an escape sequence on someone's screen.
    let shown = |part: &str| -> String {
        part.chars()
            .map(|c| if c.is_control() { '\u{fffd}' } else { c })
            .collect()
    };
    match s.char_indices().nth(QUOTE_CHARS) {
        None => shown(s),
        Some((cut, _)) => format!("{}…", shown(&s[..cut])),
    }
}

/// [`excerpt`] of bytes that may not be UTF-8 (invalid bytes shown as U+FFFD).
pub fn excerpt_bytes(bytes: &[u8]) -> String {
    // Never decode more than the quote can show (4 bytes a character at most).
    let head = &bytes[..bytes.len().min(QUOTE_CHARS * 4 + 4)];
    let text = String::from_utf8_lossy(head);
    let cut = excerpt(&text);
    if head.len() < bytes.len() && !cut.ends_with('…') {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_short() {
        let long = "é".repeat(1000);
        let e = excerpt(&long);
        assert_eq!(e.chars().count(), QUOTE_CHARS + 1);
        assert!(e.ends_with('…'));
        assert_eq!(excerpt("short"), "short");
        let b = excerpt_bytes(&vec![b'e'; 10_000_000]);
        assert_eq!(b.chars().count(), QUOTE_CHARS + 1);
        assert_eq!(excerpt_bytes(b"ab\xff"), "ab\u{fffd}");
        // No escape sequence is quoted back raw.
        assert_eq!(
            excerpt("\u{1b}]0;owned\u{7}\u{1b}[2J"),
            "\u{fffd}]0;owned\u{fffd}\u{fffd}[2J"
        );
    }
}
