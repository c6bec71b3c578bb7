//! The rewake store from the command line: where it is, enqueueing from `run`/`claude`, session
//! mail for `claude`, and `rewake list|cancel` (R-RW-11/11b/12).

use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::bail;
use hook_core::HookEngine;
use hook_host::{EnqueueSink, StoreLocation, TakenMail};
use hook_rewake::StoredEnvelope;
use serde::Serialize;

use crate::cli::{RewakeCancelArgs, RewakeCommand, TierArgs, absolute};

/// The store of this user: `$AIMON_REWAKE_STORE`, else `$HOME/.aimon/rewake.db`.
pub(crate) fn location() -> anyhow::Result<StoreLocation> {
    let url = crate::env::Env::get().store.as_deref();
    Ok(StoreLocation::select(url, TierArgs::default().home_dir().as_deref())?)
}

/// `engine` writing its rewake envelopes to the store (a bad store URL is a WARN: the hooks
/// still run, their rewakes are dropped).
pub(crate) fn enqueueing(engine: HookEngine) -> HookEngine {
    match location() {
        Ok(location) => engine.with_rewake(Arc::new(EnqueueSink::new(location))),
        Err(err) => {
            tracing::warn!("hooks: {err:#}; rewakes of this call are dropped");
            engine
        }
    }
}

/// Deletes delivered mail; a failure is a WARN (the mail comes again after its claim expires).
pub(crate) fn ack(mail: TakenMail) {
    if let Err(err) = mail.ack() {
        tracing::warn!("hooks: delivered mail could not be removed from the mailbox: {err}");
    }
}

/// `rewake list|cancel`.
pub(crate) fn command(command: RewakeCommand) -> anyhow::Result<u8> {
    let location = location()?;
    match command {
        RewakeCommand::List { json } => list(&location, json),
        RewakeCommand::Cancel(args) => cancel(&location, &args),
    }
}

fn list(location: &StoreLocation, as_json: bool) -> anyhow::Result<u8> {
    let mut rows = match location.open_existing()? {
        Some(store) => store.load()?.envelopes,
        None => Vec::new(),
    };
    rows.sort_by(|a, b| (a.envelope.next_fire_at, &a.envelope.id).cmp(&(b.envelope.next_fire_at, &b.envelope.id)));
    if as_json {
        let rows: Vec<Row<'_>> = rows.iter().map(Row::new).collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(0);
    }
    if rows.is_empty() {
        println!("no pending rewake envelopes in {location}");
        return Ok(0);
    }
    let header = ["ID", "HOOK", "EVENT", "PROJECT", "SESSION", "NEXT FIRE", "ATTEMPT", "REASON"].map(str::to_owned);
    let table: Vec<[String; 8]> = rows
        .iter()
        .map(|row| {
            let e = &row.envelope;
            [
                e.id.clone(),
                e.hook_id.clone(),
                e.event.name().to_owned(),
                e.project_dir().map_or("-".to_owned(), |p| p.display().to_string()),
                e.session_id().unwrap_or("-").to_owned(),
                e.next_fire_at.map_or("on event".to_owned(), |t| t.format("%Y-%m-%dT%H:%M:%SZ").to_string()),
                format!("{}/{}", e.attempt, e.max_attempts),
                e.reason.clone(),
            ]
        })
        .collect();
    crate::table::print_table(&header, &table);
    Ok(0)
}

/// One envelope of `rewake list --json`. Fields in the order of their names, the order the object
/// has always been printed in.
#[derive(Debug, Serialize)]
struct Row<'a> {
    attempt: u32,
    event: &'static str,
    expires_at: Option<String>,
    hook_id: &'a str,
    id: &'a str,
    lease_until: Option<String>,
    leased_by: Option<&'a str>,
    max_attempts: u32,
    next_fire_at: Option<String>,
    payload: &'a BTreeMap<String, String>,
    project: Option<String>,
    reason: &'a str,
    scheduled_at: Option<String>,
    session_id: Option<&'a str>,
}

impl<'a> Row<'a> {
    fn new(row: &'a StoredEnvelope) -> Self {
        let e = &row.envelope;
        let time = |t: Option<chrono::DateTime<chrono::Utc>>| t.map(|t| t.to_rfc3339());
        Row {
            attempt: e.attempt,
            event: e.event.name(),
            expires_at: time(e.expires_at),
            hook_id: &e.hook_id,
            id: &e.id,
            lease_until: time(row.lease.as_ref().map(|l| l.until)),
            leased_by: row.lease.as_ref().map(|l| l.owner.as_str()),
            max_attempts: e.max_attempts,
            next_fire_at: time(e.next_fire_at),
            payload: &e.payload,
            project: e.project_dir().map(|p| p.display().to_string()),
            reason: &e.reason,
            scheduled_at: time(e.scheduled_at),
            session_id: e.session_id(),
        }
    }
}

fn cancel(location: &StoreLocation, args: &RewakeCancelArgs) -> anyhow::Result<u8> {
    let Some(store) = location.open_existing()? else {
        bail!("no pending rewake envelopes: {location} does not exist");
    };
    if let Some(hook) = &args.hook {
        let cwd = crate::env::Env::get().cwd()?;
        let project = absolute(cwd, args.project.as_deref().unwrap_or(std::path::Path::new(".")));
        let ids = store.remove_hook(Some(&project), hook)?;
        if ids.is_empty() {
            bail!("no pending rewake envelope of hook '{hook}' in project {}", project.display());
        }
        for id in &ids {
            println!("cancelled {id}");
        }
        return Ok(0);
    }
    let id = args.id.as_deref().unwrap_or_default();
    if !store.remove(id)? {
        bail!("no pending rewake envelope '{id}' in {location}");
    }
    println!("cancelled {id}");
    Ok(0)
}
