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
