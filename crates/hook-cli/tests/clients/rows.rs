//! The rows every client runs, one session each, with the recording hook on all its events.
//! `client_rows!(CLIENT)` makes one `#[tokio::test]` per row in the client's module; what differs
//! between clients (event names, answer forms, failure behaviour) comes from its [`Client`].

use std::path::PathBuf;

use serde_json::Value;

use crate::model::{Turn, strings};
use crate::runner::{Answer, Client, Run, Scenario, TOOL_OUTPUT};

/// The reason the deny rows give; it must reach the model.
const DENY_REASON: &str = "harness-deny: pushes go through review";

/// One `#[tokio::test]` per row for `$client`.
macro_rules! client_rows {
    ($client:expr) => {
        #[tokio::test(flavor = "multi_thread")]
        async fn an_allowed_shell_call_runs_and_its_output_reaches_the_model() {
            $crate::rows::an_allowed_shell_call_runs_and_its_output_reaches_the_model(&$client).await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn a_deny_in_the_clients_own_form_stops_the_call_and_its_reason_reaches_the_model() {
            $crate::rows::a_deny_in_the_clients_own_form_stops_the_call_and_its_reason_reaches_the_model(&$client)
                .await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn a_hook_exiting_2_stops_the_call() {
            $crate::rows::a_hook_exiting_2_stops_the_call(&$client).await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn a_crashing_hook_does_what_the_client_documents() {
            $crate::rows::a_crashing_hook_does_what_the_client_documents(&$client).await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn post_tool_context_reaches_the_model() {
            $crate::rows::post_tool_context_reaches_the_model(&$client).await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn a_denied_call_whose_command_holds_a_lone_surrogate_never_runs() {
            $crate::rows::a_denied_call_whose_command_holds_a_lone_surrogate_never_runs(&$client).await;
        }

        #[tokio::test(flavor = "multi_thread")]
        async fn an_untrusted_projects_hooks_do_not_run() {
            $crate::rows::an_untrusted_projects_hooks_do_not_run(&$client).await;
        }
    };
}
pub(crate) use client_rows;

/// Where a client's captured payloads are kept for the wire modules' unit tests. (They belong in
/// `crates/hook-wire/tests/fixtures/<client>/` once that crate exists on this branch: a directory
/// under `crates/` without a `Cargo.toml` breaks the workspace's `crates/*` members.)
fn fixtures_dir(client: &Client) -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let wire = manifest.join("../hook-wire/tests/fixtures").join(client.name);
    if wire.is_dir() { wire } else { manifest.join("tests/fixtures/clients").join(client.name) }
}

fn assert_finished(run: &Run) {
    run.check(run.code == Some(0), "the client exited with a failure");
}

/// Whether some string in `payload` contains `text`.
fn holds(payload: &Value, text: &str) -> bool {
    strings(payload).iter().any(|s| s.contains(text))
}

/// Every event fires with the recording hook allowing; the call runs and its output reaches the
/// model; the pre- and post-tool payloads carry the command. With `AIMON_SAVE_CLIENT_FIXTURES=1`
/// the first payload of each event is saved under `crates/hook-cli/tests/fixtures/clients/<client>/`.
pub(crate) async fn an_allowed_shell_call_runs_and_its_output_reaches_the_model(client: &'static Client) {
    let run = Scenario::new(client).run().await;
    assert_finished(&run);
    run.check(run.tool_ran(), "the allowed shell call did not run");
    run.check(run.model_saw(TOOL_OUTPUT), format_args!("the model never saw the tool's output {TOOL_OUTPUT:?}"));
    let events = client.events;
    for event in [events.pre_tool, events.post_tool] {
        let payloads = run.payloads(event);
        run.check(
            payloads.iter().any(|p| holds(p, "printf 'tool-%s")),
            format_args!("no {event} payload carries the shell command"),
        );
    }
    for event in [events.session_start, events.prompt] {
        run.check(!run.payloads(event).is_empty(), format_args!("the {event} hook never ran"));
    }
    if std::env::var_os("AIMON_SAVE_CLIENT_FIXTURES").is_some() {
        run.save_payloads(&fixtures_dir(client));
    }
}

/// The pre-tool hook denies in the client's own form: the call never runs and the reason reaches
/// the model.
pub(crate) async fn a_deny_in_the_clients_own_form_stops_the_call_and_its_reason_reaches_the_model(
    client: &'static Client,
) {
    let deny = (client.deny)(DENY_REASON).to_string();
    let run = Scenario::new(client).answer(client.events.pre_tool, Answer::Print(deny)).run().await;
    assert_finished(&run);
    run.check(!run.payloads(client.events.pre_tool).is_empty(), "the pre-tool hook never ran");
    run.check(!run.tool_ran(), "the denied shell call ran");
    run.check(run.model_saw(DENY_REASON), "the deny reason never reached the model");
}

/// The pre-tool hook exits 2 with a reason on stderr: the call never runs; the reason reaches
/// the model where the client passes stderr on.
pub(crate) async fn a_hook_exiting_2_stops_the_call(client: &'static Client) {
    let answer = Answer::Exit { code: 2, stderr: format!("{DENY_REASON}\n") };
    let run = Scenario::new(client).answer(client.events.pre_tool, answer).run().await;
    assert_finished(&run);
    run.check(!run.payloads(client.events.pre_tool).is_empty(), "the pre-tool hook never ran");
    run.check(!run.tool_ran(), "the shell call ran although the hook exited 2");
    run.check(
        run.model_saw(DENY_REASON) == client.exit2_reason_reaches_model,
        format_args!("the exit-2 reason reaching the model should be {}", client.exit2_reason_reaches_model),
    );
}

/// The pre-tool hook exits 1: the client does what it documents (most run the call: fail open).
pub(crate) async fn a_crashing_hook_does_what_the_client_documents(client: &'static Client) {
    let answer = Answer::Exit { code: 1, stderr: "recording hook: crashed\n".into() };
    let run = Scenario::new(client).answer(client.events.pre_tool, answer).run().await;
    assert_finished(&run);
    run.check(!run.payloads(client.events.pre_tool).is_empty(), "the pre-tool hook never ran");
    run.check(
        run.tool_ran() != client.crash_blocks,
        format_args!("after a hook crash the call should {}", if client.crash_blocks { "be blocked" } else { "run" }),
    );
}

/// The post-tool hook adds context in the client's own form; it reaches the model.
pub(crate) async fn post_tool_context_reaches_the_model(client: &'static Client) {
    let context = "harness-context: the output was checked";
    let answer = Answer::Print((client.post_context)(context).to_string());
    let run = Scenario::new(client).answer(client.events.post_tool, answer).run().await;
    assert_finished(&run);
    run.check(run.tool_ran(), "the shell call did not run");
    run.check(run.model_saw(context), "the post-tool context never reached the model");
}

/// The model asks for a command holding a lone surrogate escape (`\ud83d`, which JavaScript's
/// JSON accepts and Rust's refuses) while the pre-tool hook denies: the call never runs, whether
/// the client refuses the arguments or passes them to the hook. With
/// `AIMON_SAVE_CLIENT_FIXTURES=1` the pre-tool payload, if the hook got one, is saved as
/// `<event>.lone-surrogate.json`.
pub(crate) async fn a_denied_call_whose_command_holds_a_lone_surrogate_never_runs(client: &'static Client) {
    let deny = (client.deny)(DENY_REASON).to_string();
    let scenario = Scenario::new(client).answer(client.events.pre_tool, Answer::Print(deny));
    let command = format!("touch {} && printf 'x\\ud83d'", scenario.root().join("tool-ran").display());
    let run = scenario.model(vec![Turn::RawShell(command), Turn::text("scripted-model: done")]).run().await;
    run.check(!run.tool_ran(), "the denied call holding a lone surrogate ran");
    if std::env::var_os("AIMON_SAVE_CLIENT_FIXTURES").is_some()
        && let Some((_, stdin)) = run.hook_calls().into_iter().find(|(event, _)| event == client.events.pre_tool)
    {
        let dir = fixtures_dir(client);
        crate::runner::write(&dir.join(format!("{}.lone-surrogate.json", client.events.pre_tool)), &stdin);
    }
}

/// Without the trust recipe, the project's hooks never run, so their deny does not hold either:
/// what part 2's `deny` rows must still stop.
pub(crate) async fn an_untrusted_projects_hooks_do_not_run(client: &'static Client) {
    let deny = (client.deny)(DENY_REASON).to_string();
    let run = Scenario::new(client).untrusted().answer(client.events.pre_tool, Answer::Print(deny)).run().await;
    run.check(run.hook_calls().is_empty(), "a hook of the untrusted project ran");
    run.check(!run.model_saw(DENY_REASON), "the untrusted hook's deny reached the model");
}
