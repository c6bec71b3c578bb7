//! The soak test (R-SRV-7), run by hand: `cargo bench -p hook-server --bench soak [SECONDS]`.
//!
//! For SECONDS (default 60) the in-process daemon gets 1,000 concurrent loopback connections: a
//! third are slow clients that trickle a header byte by byte (the daemon cuts them off), a third
//! send garbage, oversized and truncated bodies to `/v1/claude` and `/v1/run`, a third send valid
//! decisions. `/v1/health` is asked every 100 ms throughout and must answer each time within 1 s,
//! and the process's RSS must end within 10 MiB of where it started. Exits 1 when either fails.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hook_server::{ServeOptions, ServiceOptions, ensure_token, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const CONNECTIONS: usize = 1000;

fn fail(sentence: &str) -> ! {
    eprintln!("soak: {sentence}");
    std::process::exit(1)
}

fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

async fn exchange(port: u16, request: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await?;
    stream.write_all(request).await?;
    let mut out = Vec::new();
    stream.read_to_end(&mut out).await?;
    Ok(out)
}

fn post(path: &str, token: &str, body: &[u8]) -> Vec<u8> {
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {token}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    head.extend_from_slice(body);
    head
}

/// Cheap deterministic noise.
fn noise(seed: &mut u64, len: usize) -> Vec<u8> {
    (0..len)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            (*seed & 0xff) as u8
        })
        .collect()
}

async fn slow_client(port: u16, until: Instant) {
    while Instant::now() < until {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)).await else { continue };
        for byte in b"GET /v1/health HTTP/1.1\r\nHost: x\r\n" {
            if Instant::now() >= until || stream.write_all(&[*byte]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
}

async fn garbage_client(port: u16, token: String, mut seed: u64, until: Instant, answered: Arc<AtomicU64>) {
    let mut i = 0u64;
    while Instant::now() < until {
        i += 1;
        let request = match i % 4 {
            0 => post("/v1/claude", &token, &noise(&mut seed, 512)),
            1 => post("/v1/run/preTool", &token, &noise(&mut seed, 4096)),
            2 => post("/v1/claude", &token, &vec![b'{'; (1 << 20) + 512]),
            _ => noise(&mut seed, 256),
        };
        if exchange(port, &request).await.is_ok() {
            answered.fetch_add(1, Ordering::Relaxed);
        }
    }
}

async fn decision_client(port: u16, token: String, payload: String, until: Instant, answered: Arc<AtomicU64>) {
    while Instant::now() < until {
        if let Ok(reply) = exchange(port, &post("/v1/claude", &token, payload.as_bytes())).await
            && reply.starts_with(b"HTTP/1.1 200")
        {
            answered.fetch_add(1, Ordering::Relaxed);
        }
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let seconds: u64 = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(60);
    if let Err(e) = nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_NOFILE, 8192, 8192) {
        fail(&format!("cannot raise the open-file limit to 8192 (run as a user allowed to): {e}"));
    }
    let root = tempfile::tempdir().unwrap_or_else(|e| fail(&e.to_string()));
    let (home, project) = (root.path().join("home"), root.path().join("project"));
    for dir in [home.join(".aimon"), project.join(".aimon"), project.join(".git")] {
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| fail(&e.to_string()));
    }
    let hooks = r#"{"hooks":{"PreToolUse":[{"matcher":"Edit","hooks":[{"type":"deny","reason":"no edits"}]}]}}"#;
    std::fs::write(project.join(".aimon/hooks.json"), hooks).unwrap_or_else(|e| fail(&e.to_string()));
    let payload = serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "cwd": project})
    .to_string();
    let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_or(7787, |a| a.port());
    let token = ensure_token(&home).unwrap_or_else(|e| fail(&e.to_string()));
    let options = ServeOptions {
        service: ServiceOptions::new(Some(home.clone()), root.path().to_owned()),
        socket: home.join(".aimon/serve.sock"),
        listen: Some(([127, 0, 0, 1], port).into()),
        store: None,
        grace: Duration::from_secs(2),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build();
    let runtime = runtime.unwrap_or_else(|e| fail(&e.to_string()));
    runtime.block_on(async move {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let daemon = tokio::spawn(serve(options, async move {
            let _ = stopped.await;
        }));
        while TcpStream::connect(("127.0.0.1", port)).await.is_err() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let health =
            format!("GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer {token}\r\n\r\n");
        for _ in 0..200 {
            let _ = exchange(port, &post("/v1/claude", &token, payload.as_bytes())).await;
        }
        let rss_before = rss_kib();
        let until = Instant::now() + Duration::from_secs(seconds);
        let answered = Arc::new(AtomicU64::new(0));
        let mut clients = tokio::task::JoinSet::new();
        for i in 0..CONNECTIONS {
            match i % 3 {
                0 => clients.spawn(slow_client(port, until)),
                1 => {
                    clients.spawn(garbage_client(port, token.clone(), 0x9e37_79b9 + i as u64, until, answered.clone()))
                }
                _ => clients.spawn(decision_client(port, token.clone(), payload.clone(), until, answered.clone())),
            };
        }
        let (mut checks, mut misses, mut worst) = (0u32, 0u32, Duration::ZERO);
        while Instant::now() < until {
            let start = Instant::now();
            let ok = tokio::time::timeout(Duration::from_secs(1), exchange(port, health.as_bytes()))
                .await
                .is_ok_and(|r| r.is_ok_and(|b| b.starts_with(b"HTTP/1.1 200")));
            checks += 1;
            worst = worst.max(start.elapsed());
            if !ok {
                misses += 1;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        while clients.join_next().await.is_some() {}
        tokio::time::sleep(Duration::from_secs(12)).await;
        let rss_after = rss_kib();
        let _ = stop.send(());
        let _ = daemon.await;
        let grew = (rss_after as f64 - rss_before as f64) / 1024.0;
        println!(
            "soak {seconds} s, {CONNECTIONS} connections (slow, garbage, decisions): {} answered requests",
            answered.load(Ordering::Relaxed)
        );
        println!("  /v1/health: {checks} checks, {misses} missed, slowest {worst:?}");
        println!(
            "  RSS {:.1} MiB before, {:.1} MiB after ({grew:+.1} MiB; bound ±10 MiB)",
            rss_before as f64 / 1024.0,
            rss_after as f64 / 1024.0
        );
        if misses > 0 || grew.abs() > 10.0 {
            fail("the daemon missed health checks or its memory did not come back");
        }
    });
}
