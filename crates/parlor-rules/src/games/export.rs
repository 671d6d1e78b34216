//! Text shared by the game-record formats (PGN for chess, PDN for checkers): tag pairs and
//! movetext lines.

/// Movetext lines stay shorter than this, as both formats ask.
const LINE_LIMIT: usize = 80;

/// Appends `[Name "value"]` and a newline, escaping `\` and `"` and turning control
/// characters into spaces.
pub(crate) fn push_tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for ch in value.chars() {
        match ch {
            '\\' | '"' => {
                out.push('\\');
                out.push(ch);
            }
            ch if ch.is_control() => out.push(' '),
            ch => out.push(ch),
        }
    }
    out.push_str("\"]\n");
}

/// Appends the movetext tokens separated by spaces, in lines shorter than 80 characters,
/// and a final newline.
pub(crate) fn push_movetext(out: &mut String, tokens: impl IntoIterator<Item = String>) {
    let mut line = String::new();
    for token in tokens {
        if !line.is_empty() && line.len() + 1 + token.len() >= LINE_LIMIT {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&token);
    }
    out.push_str(&line);
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_escaped_and_lines_wrap_before_80() {
        let mut out = String::new();
        push_tag(&mut out, "White", "a \"b\" \\ c\nd");
        assert_eq!(out, "[White \"a \\\"b\\\" \\\\ c d\"]\n");
        let mut text = String::new();
        push_movetext(&mut text, (0..40).map(|n| format!("move{n}")));
        assert!(text.lines().all(|line| line.len() < LINE_LIMIT));
        assert_eq!(text.split_whitespace().count(), 40);
    }
}
