//! A client's tool call in the matcher vocabulary. Each client's module holds one table of its
//! tools ([`ToolMap`]: its name, ours, and what each of its arguments is to the matchers); this
//! module applies a row to a payload. The client's own arguments stay as they are (a hook sees
//! them, and an input a hook rewrites goes back to the client in its keys); what the matchers read
//! is added beside them under hook-predicate's keys. A key the matchers already read that the
//! call also gives under another name with another value becomes both values, a list: a value of
//! the wrong type, which the matchers read as uncertain (a deny holds, an allow does not).
//!
//! A tool no table names keeps its name; hook-predicate's Read and Edit rules then read the paths
//! its arguments name (as for MCP tools).

use serde_json::{Map, Value};

use crate::claude::PayloadKey;

/// The matchers' keys (hook-predicate's) a client's argument is added under; `file_paths` is
/// every path one call touches (Codex's `apply_patch`).
pub(crate) const FILE_PATH: &str = "file_path";
pub(crate) const FILE_PATHS: &str = "file_paths";
const SEARCH_ROOT: &str = "path";
const SEARCH_GLOB: &str = "glob";
const FILE_GLOBS: &str = "file_globs";
const BASH_DIR: &str = "cwd";
const COMMAND: &str = "command";
const SHELL: &str = "shell";

/// One tool of a client: its name, the matcher vocabulary's, and its arguments the matchers read
/// under another key (an argument already spelled as the matchers read it is not listed).
#[derive(Debug)]
pub(crate) struct ToolMap {
    pub(crate) id: &'static str,
    pub(crate) ours: &'static str,
    pub(crate) args: &'static [(&'static str, Arg)],
}

/// What a client's argument is to the matchers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arg {
    /// The one file a file tool opens: `file_path`.
    Path,
    /// Where a search starts: `path`.
    SearchRoot,
    /// The glob of the files a search reads: Grep's `glob`.
    SearchGlob,
    /// Paths, directories and globs a reading call selects, each one read: all of them, in order,
    /// in `file_globs` (a value that is not a list of strings makes it `null`: uncertain).
    Selected,
    /// The directory a shell command runs in: the Bash call's `cwd`.
    Dir,
    /// Text that something other than a POSIX shell reads (the word names it: `powershell`, or
    /// `input` for text typed into a running program): the Bash call's `command`, with `shell`.
    Text(&'static str),
}

/// The tool `id` names in `table`.
pub(crate) fn find(table: &'static [ToolMap], id: &str) -> Option<&'static ToolMap> {
    table.iter().find(|tool| tool.id == id)
}

/// Renames the payload's tool to `tool.ours` and adds its arguments under the matchers' keys.
pub(crate) fn map(tool: &ToolMap, payload: &mut Map<String, Value>) {
    payload.insert(PayloadKey::TOOL_NAME.into(), tool.ours.into());
    let Some(Value::Object(input)) = payload.get_mut(PayloadKey::TOOL_INPUT) else { return };
    let mut selected: Option<Option<Vec<Value>>> = None;
    for (key, arg) in tool.args {
        let Some(value) = input.get(*key).cloned() else { continue };
        let target = match arg {
            Arg::Path => FILE_PATH,
            Arg::SearchRoot => SEARCH_ROOT,
            Arg::SearchGlob => SEARCH_GLOB,
            Arg::Dir => BASH_DIR,
            Arg::Text(shell) => {
                add(input, SHELL, Value::from(*shell));
                COMMAND
            }
            Arg::Selected => {
                let all = selected.get_or_insert_with(|| Some(Vec::new()));
                match (all.as_mut(), value) {
                    (Some(all), Value::Array(items)) if items.iter().all(Value::is_string) => all.extend(items),
                    _ => *all = None,
                }
                continue;
            }
        };
        add(input, target, value);
    }
    if let Some(selected) = selected {
        input.insert(FILE_GLOBS.into(), selected.map_or(Value::Null, Value::Array));
    }
}

/// `value` under `key`; a different value already there makes it both, a list.
fn add(input: &mut Map<String, Value>, key: &str, value: Value) {
    match input.get_mut(key) {
        None => {
            input.insert(key.into(), value);
        }
        Some(there) if *there == value => {}
        Some(there) => *there = Value::Array(vec![there.take(), value]),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const TABLE: &[ToolMap] = &[
        ToolMap { id: "shell", ours: "Bash", args: &[("directory", Arg::Dir)] },
        ToolMap { id: "many", ours: "Read", args: &[("paths", Arg::Selected), ("include", Arg::Selected)] },
        ToolMap { id: "type", ours: "Bash", args: &[("input", Arg::Text("input"))] },
        ToolMap { id: "read", ours: "Read", args: &[("absolute_path", Arg::Path)] },
    ];

    fn mapped(id: &str, input: Value) -> Map<String, Value> {
        let mut payload = Map::new();
        payload.insert("tool_name".into(), id.into());
        payload.insert("tool_input".into(), input);
        map(find(TABLE, id).expect("in the table"), &mut payload);
        payload
    }

    #[test]
    fn each_argument_is_added_under_the_matchers_key_and_the_clients_own_stay() {
        // (tool, input, the input the matchers read)
        let cases = [
            (
                "shell",
                json!({"command": "ls", "directory": "sub"}),
                json!({"command": "ls", "directory": "sub", "cwd": "sub"}),
            ),
            ("shell", json!({"command": "ls"}), json!({"command": "ls"})),
            (
                "many",
                json!({"paths": ["a", "b/*"], "include": ["*.env"]}),
                json!({"paths": ["a", "b/*"], "include": ["*.env"], "file_globs": ["a", "b/*", "*.env"]}),
            ),
            ("many", json!({"paths": "a"}), json!({"paths": "a", "file_globs": null})),
            (
                "many",
                json!({"paths": ["a"], "include": [7]}),
                json!({"paths": ["a"], "include": [7], "file_globs": null}),
            ),
            (
                "type",
                json!({"input": "git push\n"}),
                json!({"input": "git push\n", "command": "git push\n", "shell": "input"}),
            ),
            ("read", json!({"absolute_path": "/p/.env"}), json!({"absolute_path": "/p/.env", "file_path": "/p/.env"})),
            ("read", json!({"absolute_path": 7}), json!({"absolute_path": 7, "file_path": 7})),
        ];
        for (id, input, want) in cases {
            let payload = mapped(id, input.clone());
            assert_eq!(payload["tool_input"], want, "{id} {input}");
            assert_eq!(payload["tool_name"], find(TABLE, id).map_or("", |t| t.ours), "{id}");
        }
    }

    #[test]
    fn a_matchers_key_given_twice_with_two_values_becomes_a_list_of_both() {
        let both = mapped("read", json!({"absolute_path": "/p/.env", "file_path": "/p/README.md"}));
        assert_eq!(both["tool_input"]["file_path"], json!(["/p/README.md", "/p/.env"]));
        let same = mapped("read", json!({"absolute_path": "/p/.env", "file_path": "/p/.env"}));
        assert_eq!(same["tool_input"]["file_path"], "/p/.env");
        let shell = mapped("type", json!({"input": "y", "command": "ls", "shell": "bash"}));
        assert_eq!(shell["tool_input"]["command"], json!(["ls", "y"]));
        assert_eq!(shell["tool_input"]["shell"], json!(["bash", "input"]));
    }
}
