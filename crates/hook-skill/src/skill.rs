//! A skill's hooks and their activation scope (R-SKILL-3).

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use hook_config::{BuildEnv, DeclarativeHook, HookEntrySpec, HookIds, Tier};
use hook_core::{ExecutionHook, HookEventType, HookRegistry};

use crate::error::Error;
use crate::frontmatter::{self, ExtractError, MAX_FRONTMATTER_BYTES};
use crate::schema::{Checker, Declared, name_rule, valid_name};
use crate::yaml::{self, Pos};

/// How much of a SKILL.md is read: the frontmatter budget plus room for the two fences.
const READ_LIMIT: u64 = MAX_FRONTMATTER_BYTES as u64 + 1024;

/// Activation serials: every activation owns its own registry group.
static ACTIVATIONS: AtomicU64 = AtomicU64::new(0);

/// The hooks a SKILL.md frontmatter declares, parsed and validated but not yet registered.
///
/// ```
/// let text = "---\nname: my-skill\nhooks:\n  preTool:\n    - matcher: Bash\n      action: { type: deny, reason: no shell here }\n---\n# My skill\n";
/// let hooks = hook_skill::SkillHooks::parse(text, "my-skill").unwrap();
/// assert_eq!(hooks.len(), 1);
/// assert_eq!(hooks.render(), "SKILL my-skill preTool matcher=\"Bash\" deny \"no shell here\"\n");
/// ```
#[derive(Clone, Debug)]
pub struct SkillHooks {
    name: String,
    entries: Vec<HookEntrySpec>,
}

/// The start of a SKILL.md: enough for the largest frontmatter and its fences, so a huge file
/// costs no more than that. A multi-byte character cut at the end is dropped; invalid UTF-8
/// before that is an error.
fn read_head(path: &Path) -> std::io::Result<String> {
    let mut head = Vec::new();
    std::fs::File::open(path)?.take(READ_LIMIT).read_to_end(&mut head)?;
    match String::from_utf8(head) {
        Ok(text) => Ok(text),
        Err(e) if e.utf8_error().error_len().is_none() => {
            let valid = e.utf8_error().valid_up_to();
            let mut head = e.into_bytes();
            head.truncate(valid);
            String::from_utf8(head).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
        }
        Err(e) => Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
    }
}

/// Cuts out, parses and checks the frontmatter of `text`.
fn declared(text: &str, origin: &str) -> Result<Declared, Error> {
    let checker = |first_line| Checker { origin, first_line };
    let block = match frontmatter::extract(text) {
        Ok(None) => return Ok(Declared::default()),
        Ok(Some(block)) => block,
        Err(ExtractError::Unclosed) => {
            let message = "the frontmatter opened by '---' on line 1 is never closed by a '---' line";
            return Err(checker(1).error(Pos { line: 1, column: 1 }, message));
        }
        Err(ExtractError::TooLarge) => {
            let message = format!("the frontmatter is larger than {MAX_FRONTMATTER_BYTES} bytes");
            return Err(checker(1).error(Pos { line: 1, column: 1 }, message));
        }
    };
    let checker = checker(block.first_line);
    let root = yaml::parse(block.yaml).map_err(|e| {
        let (pos, message) = yaml::describe_error(&e);
        checker.error(pos.unwrap_or(Pos { line: 1, column: 1 }), message)
    })?;
    checker.document(&root)
}

impl SkillHooks {
    /// Parses a SKILL.md text for the skill `skill_name` (the name the embedder knows the skill
    /// by; it wins over any frontmatter `name:`). A text that does not start with a `---` line,
    /// or whose frontmatter has no `hooks:`, declares no hooks. Errors name `SKILL.md` and the
    /// line and column in it.
    pub fn parse(text: &str, skill_name: &str) -> Result<SkillHooks, Error> {
        let origin = "SKILL.md";
        let declared = declared(text, origin)?;
        if !valid_name(skill_name) {
            return Err(Error::SkillName {
                origin: origin.to_owned(),
                message: format!("skill name '{skill_name}' is not {}", name_rule()),
            });
        }
        Ok(SkillHooks { name: skill_name.to_owned(), entries: declared.entries })
    }

    /// Reads and parses a SKILL.md file. The skill's name is the frontmatter `name:` when given,
    /// else the name of the directory holding the file (`skills/my-skill/SKILL.md` → `my-skill`).
    pub fn from_path(path: &Path) -> Result<SkillHooks, Error> {
        let origin = path.display().to_string();
        let text = read_head(path).map_err(|source| Error::Read { origin: origin.clone(), source })?;
        let declared = declared(&text, &origin)?;
        let name = match declared.name {
            Some(name) => name,
            None => {
                let dir = std::fs::canonicalize(path)
                    .ok()
                    .and_then(|p| p.parent().and_then(Path::file_name).map(|n| n.to_string_lossy().into_owned()))
                    .unwrap_or_default();
                if !valid_name(&dir) {
                    return Err(Error::SkillName {
                        origin,
                        message: format!(
                            "the frontmatter has no 'name:' and the directory name '{dir}' is not {}; add 'name: my-skill'",
                            name_rule()
                        ),
                    });
                }
                dir
            }
        };
        Ok(SkillHooks { name, entries: declared.entries })
    }

    /// The skill's name: the `<source>` of its hook ids.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The number of hooks declared.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no hook is declared.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The declared hooks in file order; each entry has exactly one handler.
    pub fn entries(&self) -> &[HookEntrySpec] {
        &self.entries
    }

    /// One line per hook (`SKILL my-skill preTool matcher="Bash" deny "…"`), for `list`-style
    /// output and snapshots.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for entry in &self.entries {
            for handler in &entry.handlers {
                let matcher = serde_json::Value::from(entry.matcher.as_str());
                let _ = writeln!(
                    out,
                    "{} {} {} matcher={matcher} {}",
                    Tier::Skill,
                    self.name,
                    entry.event,
                    handler.summary()
                );
            }
        }
        out
    }

    /// Builds the managed hooks with hook-config's builder: tier SKILL, source the skill name,
    /// so ids read `<kind>@<skill>#<hash>` and are the same on every activation (R-CFG-ID-2).
    pub fn build(&self, env: &BuildEnv) -> Vec<(HookEventType, Arc<DeclarativeHook>)> {
        let mut ids = HookIds::new();
        self.entries
            .iter()
            .flat_map(|entry| entry.handlers.iter().map(move |handler| (entry, handler)))
            .map(|(entry, handler)| {
                let hook = DeclarativeHook::build(
                    entry.event,
                    &entry.matcher,
                    handler,
                    Tier::Skill,
                    &self.name,
                    &mut ids,
                    env,
                );
                (entry.event, hook)
            })
            .collect()
    }

    /// Activates the skill: registers its hooks into `registry` as one managed group of its own
    /// (`skill:<name>@<serial>`), isolated from the file tiers' group and from other skills, and
    /// returns the guard that removes exactly those hooks again (R-SKILL-3). Activating the same
    /// skill twice registers its hooks twice, each set owned by its guard. Nothing watches the
    /// file: a skill's hooks are never hot-reloaded.
    pub fn activate(&self, registry: &Arc<HookRegistry>, env: &BuildEnv) -> SkillGuard {
        let serial = ACTIVATIONS.fetch_add(1, Ordering::Relaxed);
        let group = format!("skill:{}@{serial}", self.name);
        let hooks: Vec<(HookEventType, Arc<dyn ExecutionHook>)> =
            self.build(env).into_iter().map(|(event, hook)| (event, hook as Arc<dyn ExecutionHook>)).collect();
        let hook_ids = hooks.iter().map(|(_, h)| h.id().to_owned()).collect();
        registry.replace_managed(&group, hooks);
        tracing::debug!(skill = %self.name, %group, hooks = self.entries.len(), "skill activated");
        SkillGuard { registry: registry.clone(), group, skill: self.name.clone(), hook_ids }
    }
}

/// An active skill. Dropping it (or calling [`SkillGuard::deactivate`]) unregisters the hooks its
/// activation registered, atomically, and nothing else: other skills, the file tiers' hooks and
/// programmatic hooks stay (R-SKILL-3, R-REG-3).
#[derive(Debug)]
#[must_use = "dropping the guard deactivates the skill at once"]
pub struct SkillGuard {
    registry: Arc<HookRegistry>,
    group: String,
    skill: String,
    hook_ids: Vec<String>,
}

impl SkillGuard {
    /// The name of the active skill: the `<source>` in the ids of the hooks this guard owns.
    pub fn skill_name(&self) -> &str {
        &self.skill
    }

    /// The registry group this activation owns.
    pub fn group(&self) -> &str {
        &self.group
    }

    /// The ids of the hooks this activation registered, in declaration order.
    pub fn hook_ids(&self) -> &[String] {
        &self.hook_ids
    }

    /// Deactivates the skill now.
    pub fn deactivate(self) {
        drop(self);
    }
}

impl Drop for SkillGuard {
    fn drop(&mut self) {
        let removed = self.registry.replace_managed(&self.group, Vec::new());
        tracing::debug!(skill = %self.skill, group = %self.group, hooks = removed.len(), "skill deactivated");
    }
}
