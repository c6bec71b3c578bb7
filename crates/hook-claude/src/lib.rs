//! `hook-claude`: Claude Code's hook wire contract, written once.
//!
//! Claude Code runs a hook with a JSON payload and reads its answer from stdout, the exit code
//! or (for `http` hooks) a response body. This crate holds both directions of that contract:
//!
//! - [`parse_payload`] and [`payload_context`]: a Claude Code payload → a [`hook_core::HookContext`],
//!   read as the client meant it (lone surrogates, any depth, bytes that are not UTF-8); what
//!   still cannot be read is [`unreadable`]'s refusal;
//! - [`answer`] and [`on_error`]: an [`hook_core::EventVerdict`] → the [`Answer`] Claude Code reads;
//!   [`http_body`]: that answer in the form an `http` handler reads;
//! - [`project_dir`]: which project a call belongs to, from [`ProjectHints`];
//! - [`add_routes`] / [`remove_routes`]: Claude Code's settings edited for `init claude`;
//! - [`mail_channel`] and [`with_mail`]: a session's rewake mail in the answer (R-RW-11);
//! - [`Key`] and [`Word`]: the keys and words of Claude Code's hook output, for writing it here and
//!   for reading a hook's answer in the same format (hook-actions).
//!
//! The `claude` command and the `serve` daemon both go through it, so their answers are the same
//! bytes. It knows nothing about files beyond walking up to a project root, nothing about
//! configuration, processes or the network. Tests sit next to the code.

mod answer;
mod error;
mod http;
mod keys;
mod mail;
mod payload;
mod project;
mod read;
mod settings;

pub use crate::{
    answer::{Answer, answer, on_error, unreadable},
    error::Error,
    http::http_body,
    keys::{Key, Word},
    mail::{MailChannel, mail_channel, with_mail},
    payload::payload_context,
    project::{ProjectHints, project_dir},
    read::{MAX_DEPTH, parse_payload, sniff_event},
    settings::{
        add_routes, command_route, guard_prefix, http_route, remove_routes, remove_shell_prefix, routed_events,
        set_shell_prefix,
    },
};
