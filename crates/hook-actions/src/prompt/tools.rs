//! The agent hook's read-only tools: `Read`, `Grep` (a fixed string) and `Glob`, under the
//! project root only, every file first asked of the project's read rules, so a file a `Read`
//! deny rule protects is neither read, searched nor listed.

use std::path::{Component, Path, PathBuf};

use serde_json::{Value, json};

use crate::prompt::spec::AgentScope;
use crate::prompt::transport::ToolDef;

/// The most bytes a tool hands back to the model.
const MAX_OUTPUT: usize = 64 << 10;
/// The most files a search visits.
const MAX_FILES: usize = 10_000;

/// The tools offered to the model.
pub(crate) fn definitions() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "Read",
            description: "Read a file of the project (path relative to the project root, or absolute inside it).",
            schema: json!({"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]}),
        },
        ToolDef {
            name: "Grep",
            description: "Find the lines holding a fixed string in the project's files (under `path`, default the root).",
            schema: json!({"type": "object", "properties": {"pattern": {"type": "string"}, "path": {"type": "string"}}, "required": ["pattern"]}),
        },
        ToolDef {
            name: "Glob",
            description: "List the project's files whose path relative to the root matches a glob (`*`, `**`, `?`).",
            schema: json!({"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}),
        },
    ]
}

/// Runs one tool call; the text is what the model reads back (an error included).
pub(crate) fn run(scope: &AgentScope, name: &str, input: &Value) -> String {
    let arg = |key: &str| input.get(key).and_then(Value::as_str);
    let out = match name {
        "Read" => arg("file_path").ok_or("file_path is required".to_owned()).and_then(|p| read(scope, p)),
        "Grep" => arg("pattern").ok_or("pattern is required".to_owned()).and_then(|p| grep(scope, p, arg("path"))),
        "Glob" => arg("pattern").ok_or("pattern is required".to_owned()).map(|p| glob(scope, p)),
        other => Err(format!("no tool '{other}': only Read, Grep and Glob")),
    };
    let mut text = out.unwrap_or_else(|e| format!("error: {e}"));
    if text.len() > MAX_OUTPUT {
        let mut end = MAX_OUTPUT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("\n[… cut]");
    }
    text
}

/// `path` resolved under the root, symlinks followed, refused when it leaves the root.
fn inside(scope: &AgentScope, path: &str) -> Result<PathBuf, String> {
    let root = scope.root.canonicalize().map_err(|e| format!("project root unreadable: {e}"))?;
    let joined = if Path::new(path).is_absolute() { PathBuf::from(path) } else { root.join(path) };
    let real = joined.canonicalize().map_err(|_| format!("{path}: no such file"))?;
    if !real.starts_with(&root) {
        return Err(format!("{path} is outside the project"));
    }
    Ok(real)
}

/// The read rules' refusal of `path`, by the path as asked and as resolved.
fn refused(scope: &AgentScope, asked: &Path, real: &Path) -> Option<String> {
    [asked, real].iter().find_map(|p| (scope.gate)("Read", &json!({"file_path": p})))
}

fn read(scope: &AgentScope, path: &str) -> Result<String, String> {
    let real = inside(scope, path)?;
    let asked = if Path::new(path).is_absolute() { PathBuf::from(path) } else { scope.root.join(path) };
    if let Some(reason) = refused(scope, &asked, &real) {
        return Err(format!("{path} is protected: {reason}"));
    }
    let bytes = std::fs::read(&real).map_err(|e| format!("{path}: {e}"))?;
    Ok(String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_OUTPUT + 1)]).into_owned())
}

/// Every readable regular file under `dir`, no symlink followed, `.git` skipped, protected ones left out.
fn files(scope: &AgentScope, dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for e in entries.into_iter().rev() {
            let (Ok(kind), path) = (e.file_type(), e.path()) else { continue };
            if kind.is_dir() && e.file_name() != ".git" {
                stack.push(path);
            } else if kind.is_file() && refused(scope, &path, &path).is_none() {
                out.push(path);
                if out.len() >= MAX_FILES {
                    return out;
                }
            }
        }
    }
    out.sort();
    out
}

fn relative<'a>(scope: &AgentScope, path: &'a Path) -> std::borrow::Cow<'a, str> {
    path.strip_prefix(&scope.root).unwrap_or(path).to_string_lossy()
}

fn grep(scope: &AgentScope, pattern: &str, under: Option<&str>) -> Result<String, String> {
    let dir = inside(scope, under.unwrap_or("."))?;
    let mut out = String::new();
    for file in files(scope, &dir) {
        let Ok(text) = std::fs::read_to_string(&file) else { continue };
        for (n, line) in text.lines().enumerate().filter(|(_, l)| l.contains(pattern)) {
            out.push_str(&format!("{}:{}:{line}\n", relative(scope, &file), n + 1));
            if out.len() > MAX_OUTPUT {
                return Ok(out);
            }
        }
    }
    Ok(if out.is_empty() { "no match".to_owned() } else { out })
}

fn glob(scope: &AgentScope, pattern: &str) -> String {
    let Ok(root) = scope.root.canonicalize() else { return "error: project root unreadable".to_owned() };
    let scope = AgentScope { root, gate: scope.gate.clone() };
    let pattern: Vec<&str> = Path::new(pattern)
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect();
    let hits: Vec<String> = files(&scope, &scope.root)
        .iter()
        .map(|f| relative(&scope, f).into_owned())
        .filter(|rel| path_matches(&pattern, &rel.split('/').collect::<Vec<_>>()))
        .collect();
    if hits.is_empty() { "no match".to_owned() } else { hits.join("\n") }
}

/// A glob of path components: `**` any number of components, `*` and `?` within one.
fn path_matches(pattern: &[&str], path: &[&str]) -> bool {
    match (pattern.first(), path.first()) {
        (None, None) => true,
        (Some(&"**"), _) => {
            path_matches(&pattern[1..], path) || (!path.is_empty() && path_matches(pattern, &path[1..]))
        }
        (Some(p), Some(s)) => name_matches(p.as_bytes(), s.as_bytes()) && path_matches(&pattern[1..], &path[1..]),
        _ => false,
    }
}

fn name_matches(p: &[u8], s: &[u8]) -> bool {
    match (p.first(), s.first()) {
        (None, None) => true,
        (Some(b'*'), _) => name_matches(&p[1..], s) || (!s.is_empty() && name_matches(p, &s[1..])),
        (Some(b'?'), Some(_)) => name_matches(&p[1..], &s[1..]),
        (Some(a), Some(b)) => a == b && name_matches(&p[1..], &s[1..]),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn project() -> (tempfile::TempDir, AgentScope) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/main.rs"), "fn main() { secret_call(); }\n").expect("write");
        std::fs::write(dir.path().join(".env"), "TOKEN=secret_call\n").expect("write");
        let gate: crate::prompt::spec::ReadGate = Arc::new(|_, input: &Value| {
            let path = input.get("file_path").and_then(Value::as_str).unwrap_or_default();
            path.ends_with(".env").then(|| "secrets stay out".to_owned())
        });
        let scope = AgentScope::new(dir.path(), gate);
        (dir, scope)
    }

    #[test]
    fn a_protected_file_is_neither_read_searched_nor_listed() {
        let (dir, scope) = project();
        let outside = tempfile::NamedTempFile::new().expect("outside");
        let cases = [
            ("Read", json!({"file_path": "src/main.rs"}), "fn main() { secret_call(); }\n".to_owned()),
            ("Read", json!({"file_path": ".env"}), "error: .env is protected: secrets stay out".to_owned()),
            (
                "Read",
                json!({"file_path": dir.path().join("src/../.env")}),
                format!("error: {} is protected: secrets stay out", dir.path().join("src/../.env").display()),
            ),
            (
                "Read",
                json!({"file_path": outside.path()}),
                format!("error: {} is outside the project", outside.path().display()),
            ),
            ("Grep", json!({"pattern": "secret_call"}), "src/main.rs:1:fn main() { secret_call(); }\n".to_owned()),
            ("Glob", json!({"pattern": "**/*"}), "src/main.rs".to_owned()),
            ("Glob", json!({"pattern": "*.rs"}), "no match".to_owned()),
            ("Bash", json!({"command": "cat .env"}), "error: no tool 'Bash': only Read, Grep and Glob".to_owned()),
        ];
        for (tool, input, want) in cases {
            assert_eq!(run(&scope, tool, &input), want, "{tool} {input}");
        }
    }
}
