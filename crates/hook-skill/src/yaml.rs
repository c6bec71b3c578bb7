//! A located YAML tree: the frontmatter is read into it with serde-saphyr under explicit
//! budgets, then checked by hand so every schema error can name its line and column.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{DefaultMessageFormatter, DuplicateKeyPolicy, MergeKeyPolicy, MessageFormatter, Spanned};

use crate::frontmatter::MAX_FRONTMATTER_BYTES;

/// A 1-based position in the YAML text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pos {
    pub(crate) line: u64,
    pub(crate) column: u64,
}

/// A YAML node with the position where it is written.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Node {
    pub(crate) value: Value,
    pub(crate) pos: Pos,
}

/// The shapes a node can take. Scalars keep the type YAML 1.2 core inference gives them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl Value {
    /// How the shape is named in error messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) | Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = Spanned::<Value>::deserialize(deserializer)?;
        let at = spanned.referenced;
        Ok(Node { value: spanned.value, pos: Pos { line: at.line(), column: at.column() } })
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        Value::deserialize(deserializer)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        Ok(Value::Int(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Int(v.into()))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        i128::try_from(v).map(Value::Int).map_err(|_| E::custom("number out of range"))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Value::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some((k, v)) = map.next_entry::<Node, Node>()? {
            entries.push((k, v));
        }
        Ok(Value::Map(entries))
    }
}

/// Parses `text` as one YAML document into a located tree, under explicit budgets: skill files
/// may come from third parties (R-DEP). Duplicate keys and merge keys (`<<`) are errors; only
/// YAML 1.2 core booleans are booleans (`no` stays a string).
pub(crate) fn parse(text: &str) -> Result<Node, serde_saphyr::Error> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_depth: 32,
            flow_nesting_limit: 32,
            max_nodes: 20_000,
            max_events: 50_000,
            max_aliases: 1_000,
            max_anchors: 1_000,
            max_documents: 1,
            max_total_scalar_bytes: MAX_FRONTMATTER_BYTES,
        },
        duplicate_keys: DuplicateKeyPolicy::Error,
        merge_keys: MergeKeyPolicy::Error,
        strict_booleans: true,
    };
    serde_saphyr::from_str_with_options(text, options)
}

/// The position and message of a YAML error, the message without serde-saphyr's location
/// suffix and with control characters escaped (it may quote the file's text).
pub(crate) fn describe_error(error: &serde_saphyr::Error) -> (Option<Pos>, String) {
    let inner = error.without_snippet();
    let message = match inner {
        serde_saphyr::Error::DuplicateMappingKey { key: Some(key), .. } => format!("duplicate key '{key}'"),
        serde_saphyr::Error::DuplicateMappingKey { key: None, .. } => "duplicate key".to_owned(),
        serde_saphyr::Error::MergeKeyNotAllowed { .. } => {
            "YAML merge keys ('<<') are not allowed in frontmatter".to_owned()
        }
        other => DefaultMessageFormatter.format_message(other).into_owned(),
    };
    let message =
        message.chars().flat_map(|c| if c.is_control() { c.escape_default().collect() } else { vec![c] }).collect();
    let pos = error.location().filter(|at| at.line() > 0).map(|at| Pos { line: at.line(), column: at.column().max(1) });
    (pos, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_message(text: &str) -> String {
        let error = parse(text).expect_err(text.get(..40).unwrap_or(text));
        describe_error(&error).1
    }

    #[test]
    fn nodes_carry_their_line_and_column() {
        let root = parse("a: 1\nb:\n  - x\n").unwrap();
        let Value::Map(fields) = root.value else { panic!("{root:?}") };
        let (key, value) = &fields[1];
        assert_eq!(key.pos, Pos { line: 2, column: 1 });
        let Value::Seq(items) = &value.value else { panic!("{value:?}") };
        assert_eq!(items[0], Node { value: Value::Str("x".to_owned()), pos: Pos { line: 3, column: 5 } });
    }

    #[test]
    fn scalars_follow_yaml_1_2_core_so_no_stays_a_string() {
        let root = parse("[no, yes, true, 5000, 1.5, ~, \"5\"]").unwrap();
        let Value::Seq(items) = root.value else { panic!("{root:?}") };
        let values: Vec<Value> = items.into_iter().map(|n| n.value).collect();
        assert_eq!(
            values,
            [
                Value::Str("no".to_owned()),
                Value::Str("yes".to_owned()),
                Value::Bool(true),
                Value::Int(5000),
                Value::Float(1.5),
                Value::Null,
                Value::Str("5".to_owned()),
            ]
        );
    }

    #[test]
    fn duplicate_and_merge_keys_are_errors() {
        assert_eq!(error_message("a: 1\na: 2\n"), "duplicate key 'a'");
        assert_eq!(
            error_message("x: &x {a: 1}\ny: {<<: *x}\n"),
            "YAML merge keys ('<<') are not allowed in frontmatter"
        );
    }

    #[test]
    fn hostile_shapes_hit_a_budget_instead_of_the_stack_or_the_clock() {
        let deep_flow = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let deep_block: String = (0..200).map(|i| format!("{}k:\n", "  ".repeat(i))).collect();
        let wide = "- x\n".repeat(30_000);
        let laughs = (1..10).fold("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n".to_owned(), |doc, i| {
            let prev = format!("*a{}", i - 1);
            format!("{doc}a{i}: &a{i} [{}]\n", vec![prev; 10].join(", "))
        });
        for text in [deep_flow, deep_block, wide, laughs] {
            let message = error_message(&text);
            assert!(message.contains("budget breached") || message.contains("recursion limit"), "{message}");
        }
    }
}
