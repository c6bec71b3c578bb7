//! Composite: AND / OR of other predicates (R-PRED-2).

use crate::predicate::{Call, ToolInputPredicate, Verdict};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    And,
    Or,
}

/// `a & b & …` or `a | b | …`, short-circuiting left to right.
#[derive(Debug)]
pub(crate) struct Composite {
    op: Op,
    parts: Vec<Box<dyn ToolInputPredicate>>,
}

impl Composite {
    /// Combines `parts`; a single part is returned as it is.
    pub(crate) fn of(op: Op, mut parts: Vec<Box<dyn ToolInputPredicate>>) -> Box<dyn ToolInputPredicate> {
        if parts.len() == 1
            && let Some(only) = parts.pop()
        {
            return only;
        }
        Box::new(Composite { op, parts })
    }
}

impl ToolInputPredicate for Composite {
    fn verdict(&self, call: &Call<'_>) -> Verdict {
        let mut parts = self.parts.iter().map(|p| p.verdict(call));
        match self.op {
            Op::And => parts.try_fold(Verdict::Match, |acc, v| {
                let acc = acc.and(v);
                if acc == Verdict::NoMatch { Err(acc) } else { Ok(acc) }
            }),
            Op::Or => parts.try_fold(Verdict::NoMatch, |acc, v| {
                let acc = acc.or(v);
                if acc == Verdict::Match { Err(acc) } else { Ok(acc) }
            }),
        }
        .unwrap_or_else(|decided| decided)
    }
}
