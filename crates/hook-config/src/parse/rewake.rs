//! A handler's `asyncRewake` block (R-CFG-RW-1…4, R-CFG-4b): every invalid field is an error
//! of its own, so `check_config` reports them all.

use std::collections::BTreeMap;
use std::time::Duration;

use hook_core::{RewakeSpec, RewakeTrigger};

use super::{At, Failed, Parser, Site};
use crate::json::{self, Object, Value};
use crate::position::Pointer;

impl Parser<'_> {
    /// The asyncRewake block (R-CFG-RW-1…4, R-CFG-4b). Invalid values fail the file; each
    /// field is checked, so every invalid one reports.
    pub(super) fn rewake(&mut self, site: &Site<'_>, obj: &mut Object<'_>) -> Result<Option<RewakeSpec>, Failed> {
        let ptr = site.pointer.key("asyncRewake");
        let mut block = match obj.remove("asyncRewake") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Bool(_)) => {
                let message = format!(
                    "hooks: boolean 'asyncRewake' (Claude Code's form) is ignored in {} on event '{}'; AIMON expects an asyncRewake object",
                    self.tier, site.event_as_written
                );
                self.warn(At::Value(&ptr), message);
                return Ok(None);
            }
            Some(Value::Object(block)) => Object::new(block),
            Some(_) => return Err(self.error(At::Value(&ptr), "asyncRewake must be an object".to_owned())),
        };
        self.unknown_fields(
            &block,
            |k| matches!(k, "trigger" | "timeout" | "maxAttempts" | "payload" | "reason"),
            &ptr,
            || " in asyncRewake".to_owned(),
        );
        let trigger = self.trigger(&ptr, &mut block);
        let reason_ptr = ptr.key("reason");
        let reason =
            match block.get("reason") {
                Some(Value::Str(r)) if !r.trim().is_empty() => Ok(r.clone().into_owned()),
                _ => Err(self
                    .error(At::Value(&reason_ptr), "asyncRewake.reason is required and must not be blank".to_owned())),
            };
        let timeout =
            block.get("timeout").map(|v| self.duration(v, &ptr.key("timeout"), "asyncRewake.timeout")).transpose();
        let attempts_ptr = ptr.key("maxAttempts");
        let max_attempts = block
            .get("maxAttempts")
            .map(|v| match v.as_u64().filter(|&n| n >= 1).and_then(|n| u32::try_from(n).ok()) {
                Some(n) => Ok(n),
                None => Err(self.error(
                    At::Value(&attempts_ptr),
                    "asyncRewake.maxAttempts must be an integer of at least 1".to_owned(),
                )),
            })
            .transpose();
        let payload_ptr = ptr.key("payload");
        let payload = block
            .get("payload")
            .map(|v| {
                let strings = v.as_object().and_then(|map| {
                    map.iter()
                        .map(|(k, v)| v.as_str().map(|v| (k.to_owned(), v.to_owned())))
                        .collect::<Option<BTreeMap<_, _>>>()
                });
                strings.ok_or_else(|| {
                    self.error(At::Value(&payload_ptr), "asyncRewake.payload must be an object of strings".to_owned())
                })
            })
            .transpose();
        let mut spec = RewakeSpec::new(trigger?, reason?);
        if let Some(timeout) = timeout? {
            spec.timeout = timeout;
        }
        if let Some(n) = max_attempts? {
            spec.max_attempts = n;
        }
        if let Some(payload) = payload? {
            spec.payload = payload;
        }
        if !site.event.spec().rewake {
            self.warn(
                At::Key(&ptr),
                format!("hooks: 'asyncRewake' is not supported on event '{}'", site.event_as_written),
            );
            return Ok(None);
        }
        Ok(Some(spec))
    }

    pub(super) fn trigger(
        &mut self,
        rewake_ptr: &Pointer<'_>,
        block: &mut Object<'_>,
    ) -> Result<RewakeTrigger, Failed> {
        let ptr = rewake_ptr.key("trigger");
        let trigger = match block.remove("trigger") {
            Some(Value::Object(trigger)) => Object::new(trigger),
            present => {
                let at = if present.is_some() { At::Value(&ptr) } else { At::Key(rewake_ptr) };
                return Err(self.error(at, "asyncRewake.trigger is required and must be an object".to_owned()));
            }
        };
        self.unknown_fields(
            &trigger,
            |k| matches!(k, "delay" | "cron" | "zone" | "event"),
            &ptr,
            || " in asyncRewake.trigger".to_owned(),
        );
        let present: Vec<&str> = ["delay", "cron", "event"].into_iter().filter(|k| trigger.contains_key(k)).collect();
        if present.len() != 1 {
            return Err(self.error(
                At::Value(&ptr),
                "asyncRewake.trigger must have exactly one of 'delay', 'cron' or 'event'".to_owned(),
            ));
        }
        let field_ptr = ptr.key(present[0]);
        let null = Value::Null;
        let value = trigger.get(present[0]).unwrap_or(&null);
        match present[0] {
            "delay" => Ok(RewakeTrigger::Delay(self.duration(value, &field_ptr, "asyncRewake.trigger.delay")?)),
            "cron" => {
                let expr = value.as_str().unwrap_or_default();
                let cron =
                    hook_rewake::validate_cron(expr).map_err(|e| self.error(At::Value(&field_ptr), e.to_string()));
                let zone_ptr = ptr.key("zone");
                let zone = match trigger.get("zone") {
                    None | Some(Value::Null) => Ok("UTC".to_owned()),
                    Some(Value::Str(z)) if hook_rewake::validate_zone(z).is_ok() => Ok(z.clone().into_owned()),
                    Some(Value::Str(z)) => Err(self.error(
                        At::Value(&zone_ptr),
                        format!("asyncRewake.trigger.zone '{z}' is not a known IANA time zone"),
                    )),
                    Some(_) => {
                        Err(self.error(At::Value(&zone_ptr), "asyncRewake.trigger.zone must be a string".to_owned()))
                    }
                };
                cron?;
                Ok(RewakeTrigger::Cron { expr: expr.to_owned(), zone: zone? })
            }
            _ => {
                let text = |k: &str| {
                    json::member(value, k).and_then(Value::as_str).filter(|s| !s.trim().is_empty()).map(str::to_owned)
                };
                match (text("type"), text("key")) {
                    (Some(kind), Some(key)) => Ok(RewakeTrigger::Event { kind, key }),
                    _ => Err(self.error(
                        At::Value(&field_ptr),
                        "asyncRewake.trigger.event must be an object with non-blank 'type' and 'key' strings"
                            .to_owned(),
                    )),
                }
            }
        }
    }

    pub(super) fn duration(
        &mut self,
        value: &Value<'_>,
        pointer: &Pointer<'_>,
        what: &str,
    ) -> Result<Duration, Failed> {
        let Some(text) = value.as_str() else {
            return Err(
                self.error(At::Value(pointer), format!("{what} must be a duration string such as \"5m\" or \"PT5M\""))
            );
        };
        hook_rewake::parse_duration(text).map_err(|e| self.error(At::Value(pointer), format!("{what}: {e}")))
    }
}
