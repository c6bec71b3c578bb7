//! The loader's view of a hooks.json text: a tree whose strings borrow from the text
//! (serde_json_borrow), so reading a file allocates little beyond what the loaded handlers keep.
//! serde_json does the parsing, so syntax errors are serde_json's own.

use std::borrow::Cow;
use std::collections::HashSet;

pub(crate) use serde_json_borrow::Value;

/// Objects with more members than this find repeated keys with a hash set.
const SMALL: usize = 8;

/// An object's members in file order, read as serde_json reads them: a repeated key keeps its
/// last value.
pub(crate) struct Object<'a>(Vec<(Cow<'a, str>, Value<'a>)>);

impl<'a> Object<'a> {
    /// The members of `object`, each key once.
    pub(crate) fn new(object: serde_json_borrow::ObjectAsVec<'a>) -> Self {
        let mut members = object.into_vec();
        if repeats_a_key(&members) {
            let mut seen = HashSet::with_capacity(members.len());
            let mut last: Vec<_> = members.drain(..).rev().filter(|(k, _)| seen.insert(k.clone())).collect();
            last.reverse();
            members = last;
        }
        Object(members)
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Takes the value of `key` out.
    pub(crate) fn remove(&mut self, key: &str) -> Option<Value<'a>> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(i).1)
    }

    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The keys, in file order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }

    /// The members, in file order.
    pub(crate) fn into_members(self) -> impl Iterator<Item = (Cow<'a, str>, Value<'a>)> {
        self.0.into_iter()
    }
}

fn repeats_a_key(members: &[(Cow<'_, str>, Value<'_>)]) -> bool {
    if members.len() <= SMALL {
        members.iter().enumerate().any(|(i, (k, _))| members[..i].iter().any(|(earlier, _)| earlier == k))
    } else {
        let mut seen = HashSet::with_capacity(members.len());
        !members.iter().all(|(k, _)| seen.insert(k.as_ref()))
    }
}

/// The member `key` of `value` when it is an object (the last, when the key repeats).
pub(crate) fn member<'v, 'a>(value: &'v Value<'a>, key: &str) -> Option<&'v Value<'a>> {
    value.as_object()?.iter().filter(|(k, _)| *k == key).last().map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn object(text: &str) -> Object<'_> {
        match serde_json::from_str(text).expect("valid") {
            Value::Object(o) => Object::new(o),
            _ => panic!("an object"),
        }
    }

    #[test]
    fn a_repeated_key_keeps_its_last_value_as_serde_json_does() {
        for text in [r#"{"a": 1, "b": 2, "a": 3}"#, &format!(r#"{{{}, "a": 3}}"#, many_members())] {
            let o = object(text);
            assert_eq!(o.get("a").and_then(Value::as_u64), Some(3), "{text}");
            assert_eq!(o.keys().filter(|k| *k == "a").count(), 1, "{text}");
            let serde: serde_json::Value = serde_json::from_str(text).expect("valid");
            assert_eq!(o.keys().count(), serde.as_object().map_or(0, |m| m.len()), "{text}");
        }
    }

    fn many_members() -> String {
        (0..20).map(|i| format!(r#""k{i}": {i}, "a": 1"#)).collect::<Vec<_>>().join(", ")
    }

    #[test]
    fn strings_without_escapes_borrow_from_the_text() {
        let text = r#"{"plain": "abc", "escaped": "a\"c"}"#;
        let mut o = object(text);
        assert!(matches!(o.remove("plain"), Some(Value::Str(Cow::Borrowed("abc")))));
        assert!(matches!(o.remove("escaped"), Some(Value::Str(Cow::Owned(s))) if s == "a\"c"));
        assert!(o.remove("plain").is_none());
    }

    #[test]
    fn a_structured_value_converts_to_serde_jsons_equal() {
        let text = r#"{"x": [1, -2, 2.5, "s", null, true, {"k": {"n": []}}]}"#;
        let serde: serde_json::Value = serde_json::from_str(text).expect("valid");
        let Value::Object(o) = serde_json::from_str(text).expect("valid") else { panic!("an object") };
        assert_eq!(serde_json::Value::from(Value::Object(o)), serde);
    }

    /// JSON values with the shapes hooks.json has: nesting, escapes, repeated keys, every number.
    fn json_text() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("null".to_owned()),
            any::<bool>().prop_map(|b| b.to_string()),
            any::<i64>().prop_map(|n| n.to_string()),
            any::<u64>().prop_map(|n| n.to_string()),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| f.to_string()),
            any::<String>().prop_map(|s| serde_json::Value::String(s).to_string()),
            prop::collection::vec(
                prop_oneof![Just("a"), Just(r"\\"), Just(r#"\""#), Just(r"\u00e9"), Just(r"\n")],
                0..8
            )
            .prop_map(|escapes| format!("\"{}\"", escapes.concat())),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(|items| format!("[{}]", items.join(","))),
                prop::collection::vec(("[ab\\\\\"]{0,2}", inner), 0..6).prop_map(|members| {
                    let members: Vec<String> =
                        members.into_iter().map(|(k, v)| format!("{}:{v}", serde_json::Value::String(k))).collect();
                    format!("{{{}}}", members.join(","))
                }),
            ]
        })
    }

    /// The tree as the loader reads it: each object through [`Object`], whose keys must be unique.
    fn read(value: Value<'_>) -> serde_json::Value {
        match value {
            Value::Object(o) => {
                let members: Vec<_> = Object::new(o).into_members().collect();
                let count = members.len();
                let map: serde_json::Map<String, serde_json::Value> =
                    members.into_iter().map(|(k, v)| (k.into_owned(), read(v))).collect();
                assert_eq!(map.len(), count, "a key repeats");
                serde_json::Value::Object(map)
            }
            Value::Array(items) => serde_json::Value::Array(items.into_iter().map(read).collect()),
            other => other.into(),
        }
    }

    proptest! {
        #[test]
        fn the_tree_reads_every_text_as_serde_json_does(text in json_text()) {
            let serde: serde_json::Value = serde_json::from_str(&text).expect("the strategy writes JSON");
            let tree: Value<'_> = serde_json::from_str(&text).expect("serde_json accepts it, so must the tree");
            prop_assert_eq!(read(tree), serde);
        }

        #[test]
        fn any_text_is_refused_by_both_or_by_neither_with_the_same_message(text in "[\\[\\]{}\":,a-z0-9 .\\\\-]{0,24}") {
            let serde = serde_json::from_str::<serde_json::Value>(&text).map_err(|e| e.to_string());
            let tree = serde_json::from_str::<Value<'_>>(&text).map(|_| ()).map_err(|e| e.to_string());
            prop_assert_eq!(serde.map(|_| ()), tree);
        }
    }
}
