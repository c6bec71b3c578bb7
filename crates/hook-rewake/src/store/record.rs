//! The stored form of an envelope (JSON), including the context snapshot it re-dispatches.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, Utc};
use hook_core::{HookContext, HookEventType, RewakeTrigger, ToolCall};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Lease, Mail, StoredEnvelope};
use crate::envelope::Envelope;
use crate::error::Error;

#[derive(Serialize, Deserialize)]
struct EnvelopeRecord {
    id: String,
    hook_id: String,
    context_id: Option<String>,
    event: String,
    trigger: TriggerRecord,
    attempt: u32,
    max_attempts: u32,
    timeout: Duration,
    scheduled_at_us: Option<i64>,
    next_fire_at_us: Option<i64>,
    expires_at_us: Option<i64>,
    payload: BTreeMap<String, String>,
    reason: String,
    context: ContextRecord,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum TriggerRecord {
    Delay(Duration),
    Cron { expr: String, zone: String },
    Event { kind: String, key: String },
}

#[derive(Serialize, Deserialize)]
struct ContextRecord {
    session_id: Option<String>,
    transcript_path: Option<String>,
    cwd: Option<PathBuf>,
    permission_mode: Option<String>,
    project_dir: Option<PathBuf>,
    invoker_name: Option<String>,
    invoker_type: Option<String>,
    iteration: Option<u64>,
    tool: Option<ToolRecord>,
    fields: Map<String, Value>,
}

#[derive(Serialize, Deserialize)]
struct ToolRecord {
    name: String,
    input: Value,
    use_id: Option<String>,
    response: Option<Value>,
    result_status: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct MailRecord {
    id: String,
    session_id: String,
    project_dir: Option<PathBuf>,
    hook_id: String,
    envelope_id: String,
    attempt: u32,
    text: String,
    block: bool,
    created_at_us: i64,
    expires_at_us: i64,
}

/// A mail as the JSON body every store keeps.
pub fn encode_mail(mail: &Mail) -> Result<String, Error> {
    Ok(serde_json::to_string(&MailRecord {
        id: mail.id.clone(),
        session_id: mail.session_id.clone(),
        project_dir: mail.project_dir.clone(),
        hook_id: mail.hook_id.clone(),
        envelope_id: mail.envelope_id.clone(),
        attempt: mail.attempt,
        text: mail.text.clone(),
        block: mail.block,
        created_at_us: mail.created_at.timestamp_micros(),
        expires_at_us: mail.expires_at.timestamp_micros(),
    })?)
}

/// The mails of stored `(id, body)` rows, oldest first; a body that cannot be read is skipped
/// with a WARN naming its id (one bad row does not hide a session's other mail).
pub fn decode_mailbox(rows: impl IntoIterator<Item = (String, String)>) -> Vec<Mail> {
    let mut mail: Vec<Mail> = rows
        .into_iter()
        .filter_map(|(id, body)| {
            decode_mail(&body)
                .inspect_err(|err| tracing::warn!(mail = %id, "rewake: skipping unreadable mail '{id}': {err}"))
                .ok()
        })
        .collect();
    mail.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    mail
}

/// A mail back from its stored JSON body.
fn decode_mail(text: &str) -> Result<Mail, Error> {
    let r: MailRecord = serde_json::from_str(text)?;
    let at = |us| instant(Some(us)).map(|t| t.unwrap_or(DateTime::<Utc>::MIN_UTC));
    Ok(Mail {
        id: r.id,
        session_id: r.session_id,
        project_dir: r.project_dir,
        hook_id: r.hook_id,
        envelope_id: r.envelope_id,
        attempt: r.attempt,
        text: r.text,
        block: r.block,
        created_at: at(r.created_at_us)?,
        expires_at: at(r.expires_at_us)?,
    })
}

/// An envelope row as every store keeps it: its id, its JSON body and its lease's owner and end
/// (microseconds). `None`, with a WARN naming the id, when the body cannot be read (the row is
/// left where it is).
pub fn decode_stored(id: &str, body: &str, owner: Option<String>, until_us: Option<i64>) -> Option<StoredEnvelope> {
    match decode(body) {
        Ok(envelope) => {
            let until = until_us.and_then(DateTime::from_timestamp_micros);
            Some(StoredEnvelope::new(envelope, owner.zip(until).map(|(owner, until)| Lease::new(owner, until))))
        }
        Err(err) => {
            tracing::warn!(envelope = %id, "rewake: skipping unreadable stored envelope '{id}': {err}");
            None
        }
    }
}

/// The project column of an envelope's row: its project directory as text (lossily).
pub fn stored_project(envelope: &Envelope) -> Option<String> {
    envelope.project_dir().map(|p| p.to_string_lossy().into_owned())
}

/// An optional instant as the microseconds since the epoch every store keeps.
pub fn micros(t: Option<DateTime<Utc>>) -> Option<i64> {
    t.map(|t| t.timestamp_micros())
}

fn instant(us: Option<i64>) -> Result<Option<DateTime<Utc>>, Error> {
    us.map(|us| DateTime::from_timestamp_micros(us).ok_or_else(|| Error::Store(format!("instant {us} out of range"))))
        .transpose()
}

/// An envelope as the JSON body every store keeps, context snapshot included.
pub fn encode(envelope: &Envelope) -> Result<String, Error> {
    let ctx = &envelope.context;
    let record = EnvelopeRecord {
        id: envelope.id.clone(),
        hook_id: envelope.hook_id.clone(),
        context_id: envelope.context_id.clone(),
        event: envelope.event.name().to_owned(),
        trigger: match &envelope.trigger {
            RewakeTrigger::Delay(d) => TriggerRecord::Delay(*d),
            RewakeTrigger::Cron { expr, zone } => TriggerRecord::Cron { expr: expr.clone(), zone: zone.clone() },
            RewakeTrigger::Event { kind, key } => TriggerRecord::Event { kind: kind.clone(), key: key.clone() },
        },
        attempt: envelope.attempt,
        max_attempts: envelope.max_attempts,
        timeout: envelope.timeout,
        scheduled_at_us: micros(envelope.scheduled_at),
        next_fire_at_us: micros(envelope.next_fire_at),
        expires_at_us: micros(envelope.expires_at),
        payload: envelope.payload.clone(),
        reason: envelope.reason.clone(),
        context: ContextRecord {
            session_id: ctx.session_id.clone(),
            transcript_path: ctx.transcript_path.clone(),
            cwd: ctx.cwd.clone(),
            permission_mode: ctx.permission_mode.clone(),
            project_dir: ctx.project_dir.clone(),
            invoker_name: ctx.invoker_name.clone(),
            invoker_type: ctx.invoker_type.clone(),
            iteration: ctx.iteration,
            tool: ctx.tool.as_ref().map(|t| ToolRecord {
                name: t.name.clone(),
                input: t.input.clone(),
                use_id: t.use_id.clone(),
                response: t.response.clone(),
                result_status: t.result_status.clone(),
            }),
            fields: ctx.fields.clone(),
        },
    };
    Ok(serde_json::to_string(&record)?)
}

/// An envelope back from its stored JSON body.
fn decode(text: &str) -> Result<Envelope, Error> {
    let r: EnvelopeRecord = serde_json::from_str(text)?;
    let event = HookEventType::resolve(&r.event).map_err(|e| Error::Store(e.to_string()))?;
    let mut context = HookContext::new(event);
    let c = r.context;
    context.session_id = c.session_id;
    context.transcript_path = c.transcript_path;
    context.cwd = c.cwd;
    context.permission_mode = c.permission_mode;
    context.project_dir = c.project_dir;
    context.context_id = r.context_id.clone();
    context.invoker_name = c.invoker_name;
    context.invoker_type = c.invoker_type;
    context.iteration = c.iteration;
    context.tool = c.tool.map(|t| {
        let mut tool = ToolCall::new(t.name, t.input);
        tool.use_id = t.use_id;
        tool.response = t.response;
        tool.result_status = t.result_status;
        tool
    });
    context.fields = c.fields;
    let mut envelope = Envelope::new(
        r.hook_id,
        context,
        hook_core::RewakeSpec::new(
            match r.trigger {
                TriggerRecord::Delay(d) => RewakeTrigger::Delay(d),
                TriggerRecord::Cron { expr, zone } => RewakeTrigger::Cron { expr, zone },
                TriggerRecord::Event { kind, key } => RewakeTrigger::Event { kind, key },
            },
            r.reason,
        )
        .with_timeout(r.timeout)
        .with_max_attempts(r.max_attempts)
        .with_payload(r.payload),
        r.attempt,
    );
    envelope.id = r.id;
    envelope.scheduled_at = instant(r.scheduled_at_us)?;
    envelope.next_fire_at = instant(r.next_fire_at_us)?;
    envelope.expires_at = instant(r.expires_at_us)?;
    Ok(envelope)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_envelope_survives_encode_and_decode_with_its_context_snapshot() {
        let mut ctx = HookContext::new(HookEventType::PRE_TOOL)
            .with_tool(ToolCall::new("Bash", json!({"command": "kubectl apply -f prod.yaml"})))
            .with_field("permission_mode", "default");
        ctx.context_id = Some("ctx-1".into());
        ctx.session_id = Some("s-1".into());
        ctx.cwd = Some("/work".into());
        ctx.iteration = Some(4);
        if let Some(tool) = ctx.tool.as_mut() {
            tool.use_id = Some("toolu_1".into());
        }
        let spec = hook_core::RewakeSpec::new(
            RewakeTrigger::Cron { expr: "0 9 * * 1".into(), zone: "Asia/Seoul".into() },
            "nightly check",
        )
        .with_payload(BTreeMap::from([("ticket".to_owned(), "T-1".to_owned())]));
        let mut envelope = Envelope::new("command@project#0", ctx, spec, 2);
        envelope.scheduled_at = DateTime::from_timestamp(1_800_000_000, 123_000);
        envelope.next_fire_at = DateTime::from_timestamp(1_800_000_600, 0);
        envelope.expires_at = DateTime::from_timestamp(1_800_003_600, 123_000);
        let back = decode(&encode(&envelope).expect("encode")).expect("decode");
        assert_eq!(back, envelope);
    }

    #[test]
    fn a_corrupt_record_is_a_store_error_not_a_panic() {
        assert!(matches!(decode("{not json"), Err(Error::Store(_))));
        assert!(matches!(decode("{}"), Err(Error::Store(_))));
    }
}
