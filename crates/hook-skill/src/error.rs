//! The crate's one error type.

/// Errors of `hook-skill`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The SKILL.md file cannot be read.
    #[error("cannot read {origin}: {source}")]
    Read {
        /// The file.
        origin: String,
        /// Why.
        source: std::io::Error,
    },
    /// The frontmatter is malformed or breaks the frontmatter schema (R-SKILL-1/2). `line` and
    /// `column` are 1-based and count from the top of SKILL.md, not of the YAML block.
    #[error("{origin}:{line}:{column}: {message}")]
    Frontmatter {
        /// The file (`SKILL.md` when parsed from text).
        origin: String,
        /// 1-based line in the file.
        line: u64,
        /// 1-based column.
        column: u64,
        /// What is wrong and, where it helps, what to write instead.
        message: String,
    },
    /// No usable skill name: neither a valid frontmatter `name:` nor a valid directory name.
    #[error("{origin}: {message}")]
    SkillName {
        /// The file.
        origin: String,
        /// What is wrong.
        message: String,
    },
}

impl Error {
    /// The 1-based line and column of a frontmatter error.
    pub fn position(&self) -> Option<(u64, u64)> {
        match self {
            Error::Frontmatter { line, column, .. } => Some((*line, *column)),
            _ => None,
        }
    }
}
