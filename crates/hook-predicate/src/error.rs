//! The one error type of the crate: a pattern `parse` could not read (R-PRED-5).

use crate::name_only::NameOnly;
use crate::predicate::ToolInputPredicate;

/// A matcher or `if` pattern that does not parse. Columns count characters from 1.
///
/// The config layer turns it into the R-PRED-5 fallback ([`Error::fallback`]) and logs
/// WARN `hooks: matcher '<pattern>' could not be parsed`.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The pattern breaks the grammar.
    #[error("matcher '{pattern}': {message} at column {column}")]
    Syntax {
        /// The whole pattern.
        pattern: String,
        /// Where it failed (1-based, in characters).
        column: usize,
        /// What was wrong, lower-case.
        message: String,
    },
    /// A regular expression in the pattern does not compile (Rust `regex` dialect).
    #[error("matcher '{pattern}': invalid regex at column {column}: {source}")]
    Regex {
        /// The whole pattern.
        pattern: String,
        /// Where the regex error is (1-based, in characters of the whole pattern).
        column: usize,
        /// The regex crate's error.
        source: regex::Error,
    },
    /// A path glob in a permission rule does not compile.
    #[error("matcher '{pattern}': invalid path glob at column {column}: {source}")]
    Glob {
        /// The whole pattern.
        pattern: String,
        /// Where the glob starts (1-based, in characters).
        column: usize,
        /// The globset crate's error.
        source: globset::Error,
    },
}

impl Error {
    /// The R-PRED-5 fallback: an exact-name predicate on the whole pattern string.
    pub fn fallback(&self) -> Box<dyn ToolInputPredicate> {
        Box::new(NameOnly::Exact(vec![self.pattern().to_owned()]))
    }

    /// The pattern that failed to parse.
    pub fn pattern(&self) -> &str {
        match self {
            Error::Syntax { pattern, .. } | Error::Regex { pattern, .. } | Error::Glob { pattern, .. } => pattern,
        }
    }

    /// Where the pattern failed (1-based, in characters).
    pub fn column(&self) -> usize {
        match self {
            Error::Syntax { column, .. } | Error::Regex { column, .. } | Error::Glob { column, .. } => *column,
        }
    }
}
