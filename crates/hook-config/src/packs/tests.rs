use std::path::Path;

use super::*;
use crate::{BuildEnv, TierPaths, load_tiers};

/// A home and a project, with the files given (`None`: absent), and a managed tier of its own.
struct Tiers {
    _root: tempfile::TempDir,
    paths: TierPaths,
}

impl Tiers {
    fn new(managed: Option<&str>, user: Option<&str>, project: Option<&str>) -> Self {
        let root = tempfile::tempdir().expect("dir");
        let (home, proj, man) = (root.path().join("home"), root.path().join("project"), root.path().join("managed"));
        for (dir, text, file) in [(&home, user, "hooks.json"), (&proj, project, "hooks.json")] {
            std::fs::create_dir_all(dir.join(".aimon")).expect("mkdir");
            if let Some(text) = text {
                std::fs::write(dir.join(".aimon").join(file), text).expect("write");
            }
        }
        std::fs::create_dir_all(&man).expect("mkdir");
        if let Some(text) = managed {
            std::fs::write(man.join("hooks.json"), text).expect("write");
        }
        let paths = TierPaths::new(Some(home), proj).with_managed_dir(man);
        Tiers { _root: root, paths }
    }

    /// The ids of the hooks built, and every WARN's message.
    fn load(&self) -> (Vec<String>, Vec<String>) {
        let (config, diagnostics) = load_tiers(&self.paths).expect("loads");
        let hooks = config.into_hooks(&BuildEnv::without_mcp(&self.paths));
        let ids = hooks.iter().map(|(_, h)| hook_core::ExecutionHook::id(&**h).to_owned()).collect();
        (ids, diagnostics.into_iter().map(|d| d.message).collect())
    }
}

#[test]
fn every_pack_reads_names_itself_and_its_rule_ids_and_matchers_are_unique() {
    for pack in packs() {
        let rules = pack.rules();
        assert!(rules.len() >= 2, "{}", pack.name());
        let mut ids: Vec<_> = rules.iter().map(|r| &r.id).collect();
        let mut matchers: Vec<_> = rules.iter().map(|r| &r.matcher).collect();
        ids.dedup();
        matchers.sort();
        matchers.dedup();
        assert_eq!((ids.len(), matchers.len()), (rules.len(), rules.len()), "{}", pack.name());
        for rule in &rules {
            assert!(rule.id.starts_with(&format!("{}#", pack.name())), "{}", rule.id);
            assert!(!rule.why.trim().is_empty() && !rule.reason.trim().is_empty(), "{}", rule.id);
            assert!(
                rule.why.starts_with(rule.decision.as_str()),
                "{}: its why says why it is {:?}",
                rule.id,
                rule.decision
            );
        }
    }
}

#[test]
fn every_pack_rule_parses_as_a_matcher() {
    let paths = TierPaths::new(Some("/h".into()), "/p");
    for rule in packs().iter().flat_map(Pack::rules) {
        hook_predicate::parse(&rule.matcher, &paths.anchors(Tier::User)).unwrap_or_else(|e| panic!("{}: {e}", rule.id));
    }
}

#[test]
fn a_pack_without_its_ids_and_whys_is_a_hooks_json_the_loader_reads_without_a_warning() {
    for pack in packs() {
        let mut doc: serde_json::Value = serde_json::from_str(pack.document_text()).expect("json");
        let root = doc.as_object_mut().expect("object");
        root.remove("pack");
        root.remove("about");
        for entry in root["hooks"]["PreToolUse"].as_array_mut().expect("entries") {
            let entry = entry.as_object_mut().expect("entry");
            entry.remove("id");
            entry.remove("why");
            // `ask` is a pack's own handler type; the rest of the handler is a deny's.
            entry["hooks"][0]["type"] = "deny".into();
        }
        let (file, diagnostics) = crate::check_config(&doc.to_string(), Path::new(pack.name()), Tier::User, None);
        assert_eq!(diagnostics, vec![], "{}", pack.name());
        assert_eq!(file.expect("loads").entries.len(), pack.rules().len());
    }
}

#[test]
fn a_pack_turned_on_in_any_tier_loads_its_rules_under_their_ids() {
    for (user, project) in
        [(Some(r#"{"packs": ["aimon/destructive"]}"#), None), (None, Some(r#"{"packs": ["aimon/destructive"]}"#))]
    {
        let tiers = Tiers::new(None, user, project);
        let (ids, warnings) = tiers.load();
        assert_eq!(warnings, Vec::<String>::new());
        let expected: Vec<String> =
            pack("aimon/destructive").expect("pack").rules().into_iter().map(|r| r.id).collect();
        assert_eq!(ids, expected);
    }
    let (ids, _) = Tiers::new(None, None, None).load();
    assert_eq!(ids, Vec::<String>::new(), "no pack is on unless a tier says so");
}

#[test]
fn the_person_turns_one_rule_off_by_id_and_a_project_cannot() {
    let on = r#"{"packs": ["aimon/destructive"], "disable": ["aimon/destructive#force-push"]}"#;
    let (ids, warnings) = Tiers::new(None, Some(on), None).load();
    assert!(!ids.contains(&"aimon/destructive#force-push".to_owned()), "{ids:?}");
    assert!(ids.contains(&"aimon/destructive#discard-changes".to_owned()));
    assert_eq!(warnings, Vec::<String>::new());

    let (ids, warnings) = Tiers::new(None, None, Some(on)).load();
    assert!(ids.contains(&"aimon/destructive#force-push".to_owned()), "{ids:?}");
    assert_eq!(
        warnings,
        ["hooks: 'disable' is read only from your own ~/.aimon/hooks.json (a project cannot turn a pack's rule off); \
          ignored in PROJECT"]
    );
}

#[test]
fn a_rule_of_a_pack_the_managed_tier_turns_on_stays_on_whatever_the_person_disables() {
    let managed = r#"{"packs": ["aimon/destructive"]}"#;
    let user = r#"{"packs": ["aimon/destructive"], "disable": ["aimon/destructive#force-push"]}"#;
    let (ids, warnings) = Tiers::new(Some(managed), Some(user), None).load();
    assert_eq!(ids.iter().filter(|id| *id == "aimon/destructive#force-push").count(), 1, "loaded once: {ids:?}");
    assert_eq!(
        warnings,
        ["hooks: 'aimon/destructive#force-push' is a rule of a pack the organisation's managed policy turns on; a \
          USER file cannot turn it off; ignored"]
    );
}

#[test]
fn unknown_packs_and_rules_and_self_protection_rules_are_warned_about_and_ignored() {
    let user = r#"{"packs": ["aimon/nope", "aimon/self", 3], "disable": ["aimon/destructive#nope", "aimon/self#policy-files"]}"#;
    let (ids, warnings) = Tiers::new(None, Some(user), None).load();
    assert_eq!(ids, Vec::<String>::new());
    assert_eq!(
        warnings,
        [
            "hooks: 'packs' holds names (strings); ignored",
            "hooks: unknown pack 'aimon/nope' (known: aimon/destructive, aimon/secrets, aimon/exfiltration, aimon/read-only, \
             aimon/self); \
             ignored",
            "hooks: no pack has a rule 'aimon/destructive#nope' (`aimon-hooks packs` lists them); ignored",
            "hooks: 'aimon/self#policy-files' is self-protection, which only \"selfProtection\": false in your own \
             ~/.aimon/hooks.json turns off; ignored",
        ]
    );
}

#[test]
fn the_active_packs_are_named_with_the_tier_that_turned_them_on() {
    let tiers = Tiers::new(None, Some(r#"{"packs": ["aimon/secrets"]}"#), Some(r#"{"packs": ["aimon/exfiltration"]}"#));
    let (config, _) = load_tiers(&tiers.paths).expect("loads");
    let active: Vec<_> = active_packs(&config).into_iter().map(|(name, tier, _)| (name, tier)).collect();
    assert_eq!(active, [("aimon/exfiltration", Tier::Project), ("aimon/secrets", Tier::User)]);
}
