//! Finding the frontmatter block: a first line `---`, then YAML up to the next line `---`.

/// The largest frontmatter accepted, in bytes: a budget against hostile skill files.
pub(crate) const MAX_FRONTMATTER_BYTES: usize = 256 * 1024;

/// The YAML text between the two `---` lines, and the file line it starts on (1-based).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Block<'a> {
    pub(crate) yaml: &'a str,
    pub(crate) first_line: u64,
}

/// Why a block could not be cut out; the position is in the file (1-based line).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ExtractError {
    /// The opening `---` has no closing `---`.
    Unclosed,
    /// The block is larger than [`MAX_FRONTMATTER_BYTES`].
    TooLarge,
}

/// Whether `line` (without its `\n`) is a `---` fence; a trailing `\r` (CRLF) and trailing
/// blanks are tolerated.
fn is_fence(line: &str) -> bool {
    line.trim_end_matches([' ', '\t', '\r']) == "---"
}

/// Cuts the frontmatter out of a SKILL.md text. `Ok(None)`: the file does not start with a
/// `---` line (a UTF-8 byte-order mark before it is allowed), so it declares no hooks.
pub(crate) fn extract(text: &str) -> Result<Option<Block<'_>>, ExtractError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (first, rest) = match text.split_once('\n') {
        Some((first, rest)) => (first, rest),
        None => (text, ""),
    };
    if !is_fence(first) {
        return Ok(None);
    }
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if offset > MAX_FRONTMATTER_BYTES {
            return Err(ExtractError::TooLarge);
        }
        if is_fence(line.trim_end_matches('\n')) {
            return Ok(Some(Block { yaml: &rest[..offset], first_line: 2 }));
        }
        offset += line.len();
    }
    Err(if offset > MAX_FRONTMATTER_BYTES { ExtractError::TooLarge } else { ExtractError::Unclosed })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_without_an_opening_fence_has_no_block() {
        for text in ["", "# Title\n---\nhooks: {}\n---\n", " ---\nx: 1\n---\n", "----\nx: 1\n----\n"] {
            assert_eq!(extract(text), Ok(None), "{text:?}");
        }
    }

    #[test]
    fn the_block_is_the_text_between_the_fences_with_crlf_bom_and_trailing_blanks_tolerated() {
        let cases = [
            ("---\nname: a\n---\nbody\n", "name: a\n"),
            ("---\r\nname: a\r\n---\r\nbody", "name: a\r\n"),
            ("\u{feff}---  \nname: a\n--- \t\n", "name: a\n"),
            ("---\n---\n", ""),
            ("---\nname: a\n---", "name: a\n"),
            ("---\na: |\n  ---x\n---\n", "a: |\n  ---x\n"),
        ];
        for (text, yaml) in cases {
            assert_eq!(extract(text), Ok(Some(Block { yaml, first_line: 2 })), "{text:?}");
        }
    }

    #[test]
    fn an_unclosed_or_oversized_block_is_an_error() {
        assert_eq!(extract("---\nname: a\n"), Err(ExtractError::Unclosed));
        assert_eq!(extract("---"), Err(ExtractError::Unclosed));
        let huge = format!("---\n{}---\n", "a: 1\n".repeat(MAX_FRONTMATTER_BYTES / 5 + 10));
        assert_eq!(extract(&huge), Err(ExtractError::TooLarge));
        let unclosed_huge = format!("---\n{}", "a: 1\n".repeat(MAX_FRONTMATTER_BYTES / 5 + 10));
        assert_eq!(extract(&unclosed_huge), Err(ExtractError::TooLarge));
    }
}
