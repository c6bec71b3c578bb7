//! The three-valued answer of a rule about a command: match, no match, or uncertain.

/// What a predicate says of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The call does not match.
    NoMatch,
    /// The call matches.
    Match,
    /// The analysis could not show that the call does not match (a construct it does not model): a
    /// deny or ask rule treats this as a match, an allow rule as no match.
    Uncertain,
}

impl Verdict {
    /// A match or an uncertain one.
    pub fn matches(self) -> bool {
        self != Verdict::NoMatch
    }

    /// `Match` when `certain` holds, `NoMatch` otherwise.
    pub fn from_bool(hit: bool) -> Self {
        if hit { Verdict::Match } else { Verdict::NoMatch }
    }

    /// Both must match: no match wins, then uncertainty.
    pub fn and(self, other: Verdict) -> Verdict {
        match (self, other) {
            (Verdict::NoMatch, _) | (_, Verdict::NoMatch) => Verdict::NoMatch,
            (Verdict::Uncertain, _) | (_, Verdict::Uncertain) => Verdict::Uncertain,
            _ => Verdict::Match,
        }
    }

    /// Either may match: a match wins, then uncertainty.
    pub fn or(self, other: Verdict) -> Verdict {
        match (self, other) {
            (Verdict::Match, _) | (_, Verdict::Match) => Verdict::Match,
            (Verdict::Uncertain, _) | (_, Verdict::Uncertain) => Verdict::Uncertain,
            _ => Verdict::NoMatch,
        }
    }
}
