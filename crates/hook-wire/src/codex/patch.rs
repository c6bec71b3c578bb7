//! Codex's file edits: the `apply_patch` tool, whose PreToolUse/PostToolUse payload is
//! `tool_name: "apply_patch"`, `tool_input: {"command": "<the patch>"}` (codex-rs
//! `HookToolName::apply_patch`, which Codex's own matchers also know as `Write` and `Edit`). The
//! matchers see it as the file tool it is:
//!
//! - the paths come from the patch's headers: `*** Add File: p`, `*** Delete File: p`,
//!   `*** Update File: p` and `*** Move to: p` (both the old and the new path of a move);
//! - `tool_name` is `Write` when the patch adds a file (a `Write(…)` rule then sees it; an
//!   `Edit(…)` rule covers `Write` too), else `Edit`;
//! - `tool_input.file_paths` lists every path (hook-predicate's path rules test each: all match is
//!   a match, some is uncertain, so a deny holds and an allow does not), and `file_path` is the
//!   path when there is only one;
//! - a patch that cannot be read (no `*** Begin Patch`/`*** End Patch`, no file header, an empty
//!   path) gets `file_paths: null`, which a path rule reads as uncertain: a deny on the tool
//!   holds, an allow does not.
//!
//! Codex's own name stays in the payload as `client_tool_name`.

use serde_json::{Map, Value};

use crate::claude::PayloadKey;
use crate::tool_args::{FILE_PATH, FILE_PATHS};

/// Codex's name of its patch tool.
pub(crate) const APPLY_PATCH: &str = "apply_patch";

/// The input keys the patch text may come under (Codex sends `command`; its function-tool form
/// takes `input`).
const PATCH_KEYS: [&str; 3] = ["command", "input", "patch"];

/// The patch's first and last lines.
const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";

/// The headers that name a path, and whether the header creates the file.
const HEADERS: [(&str, bool); 4] =
    [("*** Add File:", true), ("*** Delete File:", false), ("*** Update File:", false), ("*** Move to:", false)];

/// The paths a patch touches, in order, each once, and whether it adds a file; `None` when it
/// cannot be read. Every line that is a header once trimmed counts (a line Codex would read as
/// hunk content too: more paths is the safe side).
pub(crate) fn touched(patch: &str) -> Option<(Vec<String>, bool)> {
    let lines: Vec<&str> = patch.lines().map(str::trim).collect();
    if !lines.contains(&BEGIN) || !lines.contains(&END) {
        return None;
    }
    let mut paths: Vec<String> = Vec::new();
    let mut adds = false;
    for line in lines {
        let Some((path, add)) = HEADERS.iter().find_map(|(h, add)| line.strip_prefix(h).map(|p| (p.trim(), *add)))
        else {
            continue;
        };
        if path.is_empty() {
            return None;
        }
        adds |= add;
        if !paths.iter().any(|p| p == path) {
            paths.push(path.to_owned());
        }
    }
    (!paths.is_empty()).then_some((paths, adds))
}

/// Renames an `apply_patch` call onto the matcher vocabulary (see the module doc); any other
/// payload is left as it is.
pub(crate) fn rename_tool(payload: &mut Map<String, Value>) {
    if payload.get(PayloadKey::TOOL_NAME).and_then(Value::as_str) != Some(APPLY_PATCH) {
        return;
    }
    let mut input = match payload.remove(PayloadKey::TOOL_INPUT) {
        Some(Value::Object(input)) => input,
        Some(Value::String(patch)) => Map::from_iter([(PATCH_KEYS[0].to_owned(), Value::String(patch))]),
        _ => Map::new(),
    };
    let patch = PATCH_KEYS.iter().find_map(|k| input.get(*k).and_then(Value::as_str));
    let tool = match patch.and_then(touched) {
        Some((paths, adds)) => {
            if let [one] = paths.as_slice() {
                input.insert(FILE_PATH.into(), one.clone().into());
            }
            input.insert(FILE_PATHS.into(), paths.into());
            if adds { "Write" } else { "Edit" }
        }
        None => {
            input.insert(FILE_PATHS.into(), Value::Null);
            "Edit"
        }
    };
    payload.insert(PayloadKey::TOOL_INPUT.into(), Value::Object(input));
    payload.insert(PayloadKey::TOOL_NAME.into(), tool.into());
    payload.insert(crate::gemini::CLIENT_TOOL_NAME.into(), APPLY_PATCH.into());
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The table of patches (`tests/fixtures/codex/patches.json`): each patch, the paths it
    /// touches and whether it adds a file (`paths: null`: unreadable). hook-cli's
    /// `replay_and_codex_decide_every_patch_of_the_table_alike` runs the same table through both.
    const TABLE: &str = include_str!("../../tests/fixtures/codex/patches.json");

    #[test]
    fn each_header_names_a_path_and_an_added_file_makes_it_a_write() {
        let table: Vec<Value> = serde_json::from_str(TABLE).expect("the patch table is JSON");
        assert!(table.len() >= 10, "the table has its rows");
        for row in &table {
            let (name, patch) = (&row["name"], row["patch"].as_str().expect("a patch"));
            let want = row["paths"].as_array().map(|paths| {
                let paths: Vec<String> = paths.iter().filter_map(Value::as_str).map(str::to_owned).collect();
                (paths, row["adds"] == true)
            });
            assert_eq!(touched(patch), want, "{name}");
        }
    }

    #[test]
    fn an_apply_patch_call_becomes_an_edit_or_write_of_its_paths_and_keeps_its_own_name() {
        let patch = |body: &str| format!("*** Begin Patch\n{body}\n*** End Patch\n");
        let call = |input: Value| {
            let mut payload = Map::new();
            payload.insert("tool_name".into(), APPLY_PATCH.into());
            payload.insert("tool_input".into(), input);
            rename_tool(&mut payload);
            payload
        };
        let one = call(json!({"command": patch("*** Update File: .env\n@@\n-A\n+B")}));
        assert_eq!(one["tool_name"], "Edit");
        assert_eq!(one["client_tool_name"], APPLY_PATCH);
        assert_eq!(
            (&one["tool_input"]["file_path"], &one["tool_input"]["file_paths"]),
            (&json!(".env"), &json!([".env"]))
        );
        assert!(one["tool_input"]["command"].as_str().is_some_and(|c| c.contains("Update File")), "the patch stays");

        let two = call(json!({"input": patch("*** Add File: a\n+x\n*** Delete File: b")}));
        assert_eq!(two["tool_name"], "Write");
        assert_eq!(two["tool_input"]["file_paths"], json!(["a", "b"]));
        assert!(two["tool_input"].get("file_path").is_none(), "no single path for a patch of two files");

        let text = call(Value::String(patch("*** Delete File: c")));
        assert_eq!(text["tool_input"]["file_paths"], json!(["c"]));

        for unreadable in [json!({"command": "rm -rf /"}), json!({}), json!(7)] {
            let got = call(unreadable.clone());
            assert_eq!(got["tool_name"], "Edit", "{unreadable}");
            assert_eq!(got["tool_input"]["file_paths"], Value::Null, "{unreadable}: uncertain");
        }
    }

    #[test]
    fn other_tools_are_left_as_they_are() {
        let mut payload = Map::new();
        payload.insert("tool_name".into(), "Bash".into());
        payload.insert("tool_input".into(), json!({"command": "*** Begin Patch"}));
        let before = payload.clone();
        rename_tool(&mut payload);
        assert_eq!(payload, before);
    }
}
