#![no_main]
//! REL-1: no bytes make the SKILL.md frontmatter parser panic, and serde-saphyr's budgets keep
//! deeply nested or huge input bounded. Each input is parsed as given (the fuzzer finds the
//! `---` fences) and wrapped in fences (straight to the YAML parser and the schema).

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = hook_skill::SkillHooks::parse(&text, "fuzz");
    let _ = hook_skill::SkillHooks::parse(&format!("---\n{text}\n---\n"), "fuzz");
});
