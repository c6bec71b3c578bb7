//! Composite: AND / OR of other predicates (R-PRED-2).

use crate::predicate::ToolInputPredicate;

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
    fn test(&self, tool_name: &str, input: &serde_json::Value) -> bool {
        match self.op {
            Op::And => self.parts.iter().all(|p| p.test(tool_name, input)),
            Op::Or => self.parts.iter().any(|p| p.test(tool_name, input)),
        }
    }
}
