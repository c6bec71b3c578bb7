//! The soak (R-SRV-7), shared by the short test in `soak.rs` and by `benches/soak.rs`: a real
//! `aimon-hooks serve` process, and from this process N concurrent loopback connections — a
//! third slow clients (a header or a body trickled a byte per 500 ms, which the daemon must cut
//! off), a third garbage (noise, oversized, truncated and malformed bodies, unknown paths and
//! events, no token), a third no-match decisions on keep-alive connections — while a thread of its
//! own asks `/v1/health` every 100 ms on a fresh connection and counts every answer slower than
//! 1 s or missing. The daemon's RSS is read from `/proc` before, during and after.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::serve_process::{serve_command, wait_until};

/// How long a health check may take, connection included.
pub(crate) const HEALTH_DEADLINE: Duration = Duration::from_secs(1);
/// How often the health thread asks.
const HEALTH_EVERY: Duration = Duration::from_millis(100);
/// A slow client's pause between two bytes.
const TRICKLE: Duration = Duration::from_millis(500);
/// The body limit of the daemon (1 MiB).
const LIMIT: usize = 1 << 20;

/// What to throw at the daemon.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// Concurrent client connections (a third of each kind).
    pub(crate) connections: usize,
    /// How long the traffic lasts.
    pub(crate) duration: Duration,
    /// A pause between two requests of a garbage or decision client (`None`: back to back).
    pub(crate) pace: Option<Duration>,
    /// Give the RSS up to [`SETTLE`] to come back after the traffic (else it is read at once).
    pub(crate) settle: bool,
}

/// What came of it.
#[derive(Debug)]
pub(crate) struct Report {
    pub(crate) plan: Plan,
    /// Decisions answered 200.
    pub(crate) decisions: u64,
    /// Garbage requests answered with a status line.
    pub(crate) garbage: u64,
    /// Slow connections the daemon closed before the client gave up.
    pub(crate) slow_cut: u64,
    pub(crate) checks: u32,
    pub(crate) misses: u32,
    pub(crate) slowest: Duration,
    /// The daemon's RSS in KiB: after the warm-up, the highest seen, after the traffic drained.
    pub(crate) rss_start: u64,
    pub(crate) rss_peak: u64,
    pub(crate) rss_end: u64,
    /// How long after the traffic drained the RSS was read (see [`SETTLE`]).
    pub(crate) settled: Duration,
    /// The `hook_server_requests_total` series in `/metrics` after the traffic (unknown paths and
    /// events must not add any).
    pub(crate) request_series: usize,
    /// The daemon's exit code after SIGTERM (128 + 15 when it shut down cleanly).
    pub(crate) exit: Option<i32>,
    /// What the daemon wrote to stderr.
    pub(crate) stderr: String,
}

impl Report {
    /// The RSS difference end − start, in MiB.
    pub(crate) fn rss_growth_mib(&self) -> f64 {
        (self.rss_end as f64 - self.rss_start as f64) / 1024.0
    }

    /// Whether the daemon panicked, by its stderr.
    pub(crate) fn panicked(&self) -> bool {
        self.stderr.contains("panicked")
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mib = |kib: u64| kib as f64 / 1024.0;
        writeln!(
            f,
            "soak {:?}, {} connections (slow, garbage, decisions{}), daemon in its own process",
            self.plan.duration,
            self.plan.connections,
            self.plan.pace.map_or_else(String::new, |p| format!(", paced {p:?}"))
        )?;
        writeln!(
            f,
            "  answered: {} decisions, {} garbage requests; {} slow connections cut by the daemon",
            self.decisions, self.garbage, self.slow_cut
        )?;
        writeln!(
            f,
            "  /v1/health: {} checks, {} missed (> {HEALTH_DEADLINE:?} or no 200), slowest {:?}",
            self.checks, self.misses, self.slowest
        )?;
        writeln!(
            f,
            "  daemon RSS: {:.1} MiB after warm-up, {:.1} MiB peak, {:.1} MiB {:.1?} after the traffic drained ({:+.1} MiB)",
            mib(self.rss_start),
            mib(self.rss_peak),
            mib(self.rss_end),
            self.settled,
            self.rss_growth_mib()
        )?;
        writeln!(f, "  /metrics: {} hook_server_requests_total series", self.request_series)?;
        write!(f, "  exit after SIGTERM: {:?}; panicked: {}", self.exit, self.panicked())
    }
}

/// Runs the soak: starts the daemon, warms it up, sends the traffic, lets it drain, stops it.
pub(crate) fn soak(bin: &Path, plan: &Plan) -> Report {
    raise_open_files(plan.connections as u64 * 2 + 256);
    let root = tempfile::tempdir().expect("temp dir");
    let (home, project) = (root.path().join("home"), root.path().join("project"));
    for dir in [home.join(".aimon"), project.join(".aimon"), project.join(".git")] {
        std::fs::create_dir_all(&dir).expect("sandbox dirs");
    }
    let hooks = r#"{"hooks":{"PreToolUse":[{"matcher":"Edit","hooks":[{"type":"deny","reason":"no edits"}]}]}}"#;
    std::fs::write(project.join(".aimon/hooks.json"), hooks).expect("hooks.json");
    let payload = serde_json::json!({"session_id": "soak", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"}, "cwd": project})
    .to_string();
    let stderr_path = root.path().join("serve.stderr");
    let mut daemon = Daemon::start(bin, root.path(), &home, &stderr_path);
    let target = Target { port: daemon.port, token: daemon.token.clone(), payload };

    let warm = Instant::now() + Duration::from_secs(30);
    let mut warmed = 0;
    while warmed < 200 {
        assert!(Instant::now() < warm, "the daemon did not answer 200 warm-up decisions within 30 s");
        if blocking_decision(&target) {
            warmed += 1;
        }
    }
    let rss_start = daemon.rss_kib();
    let fds_start = daemon.open_files();

    let until = Instant::now() + plan.duration;
    let peak = Arc::new(AtomicU64::new(rss_start));
    let sampler = {
        let (peak, pid) = (peak.clone(), daemon.child.id());
        std::thread::spawn(move || {
            while Instant::now() < until {
                peak.fetch_max(rss_of(pid), Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(200));
            }
        })
    };
    let health = {
        let target = target.clone();
        std::thread::spawn(move || health_checks(&target, until))
    };
    let counts = Counts::default();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    runtime.block_on(async {
        let mut clients = tokio::task::JoinSet::new();
        for i in 0..plan.connections {
            let (target, counts, pace) = (target.clone(), counts.clone(), plan.pace);
            let seed = 0x9e37_79b9_7f4a_7c15 ^ (i as u64 + 1);
            match i % 3 {
                0 => clients.spawn(slow_client(target, i % 2 == 0, until, counts)),
                1 => clients.spawn(garbage_client(target, seed, pace, until, counts)),
                _ => clients.spawn(decision_client(target, pace, until, counts)),
            };
        }
        while clients.join_next().await.is_some() {}
    });
    drop(runtime);
    let (checks, misses, slowest) = health.join().expect("the health thread");
    sampler.join().expect("the RSS sampler");

    // Every client connection is closed now; wait until the daemon has let go of them too.
    let drained = Instant::now() + Duration::from_secs(15);
    while daemon.open_files() > fds_start + 4 && Instant::now() < drained {
        std::thread::sleep(Duration::from_millis(100));
    }
    let request_series = request_series(&target);
    let (rss_end, settled) = if plan.settle { settle(&daemon, rss_start) } else { (daemon.rss_kib(), Duration::ZERO) };
    let exit = daemon.stop();
    Report {
        plan: plan.clone(),
        decisions: counts.decisions.load(Ordering::Relaxed),
        garbage: counts.garbage.load(Ordering::Relaxed),
        slow_cut: counts.slow_cut.load(Ordering::Relaxed),
        checks,
        misses,
        slowest,
        rss_start,
        rss_peak: peak.load(Ordering::Relaxed).max(rss_end),
        rss_end,
        settled,
        request_series,
        exit,
        stderr: std::fs::read_to_string(&stderr_path).unwrap_or_default(),
    }
}

/// Raises this process's open-file limit (the daemon inherits it) to at least `wanted`.
fn raise_open_files(wanted: u64) {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).expect("getrlimit");
    if soft >= wanted {
        return;
    }
    assert!(hard >= wanted, "the soak needs {wanted} open files; the hard limit is {hard} (raise it with ulimit -Hn)");
    setrlimit(Resource::RLIMIT_NOFILE, wanted, hard).expect("setrlimit");
}

/// The running `aimon-hooks serve`.
struct Daemon {
    child: Child,
    port: u16,
    token: String,
}

impl Daemon {
    fn start(bin: &Path, root: &Path, home: &Path, stderr: &Path) -> Daemon {
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port();
        let listen = format!("127.0.0.1:{port}");
        let child = serve_command(bin, home, root, &["--listen", &listen])
            .env("AIMON_TRUST_PROJECT_HOOKS", "1")
            .stderr(std::fs::File::create(stderr).expect("stderr file"))
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", bin.display()));
        wait_until(Duration::from_secs(20), &format!("serve did not listen on {listen}"), || {
            std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
        });
        let token = std::fs::read_to_string(home.join(".aimon/serve.token")).expect("the token file");
        Daemon { child, port, token: token.trim().to_owned() }
    }

    fn rss_kib(&self) -> u64 {
        rss_of(self.child.id())
    }

    fn open_files(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id())).map_or(0, Iterator::count)
    }

    /// SIGTERM, then the exit code (`None` when it had to be killed or died of a signal).
    fn stop(&mut self) -> Option<i32> {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).expect("pid"));
        if let Ok(Some(status)) = self.child.try_wait() {
            return status.code();
        }
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM");
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// How long the RSS is given to come back after the traffic drained: the allocator hands freed
/// pages back over its decay time (jemalloc's is 10 s; the soak saw them gone after ~17 s).
const SETTLE: Duration = Duration::from_secs(25);

/// The daemon's RSS after [`SETTLE`], or earlier once it is back within 1 MiB of `start`; and
/// how long that took.
fn settle(daemon: &Daemon, start: u64) -> (u64, Duration) {
    let began = Instant::now();
    loop {
        let rss = daemon.rss_kib();
        if rss <= start + 1024 || began.elapsed() >= SETTLE {
            return (rss, began.elapsed());
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn rss_of(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

#[derive(Debug, Clone)]
struct Target {
    port: u16,
    token: String,
    payload: String,
}

impl Target {
    fn request(&self, method: &str, path: &str, extra: &str, body_len: usize) -> Vec<u8> {
        format!(
            "{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: {body_len}\r\n{extra}\r\n",
            self.token
        )
        .into_bytes()
    }

    fn post(&self, path: &str, body: &[u8]) -> Vec<u8> {
        let mut out = self.request("POST", path, "Connection: close\r\n", body.len());
        out.extend_from_slice(body);
        out
    }
}

#[derive(Debug, Clone, Default)]
struct Counts {
    decisions: Arc<AtomicU64>,
    garbage: Arc<AtomicU64>,
    slow_cut: Arc<AtomicU64>,
}

/// One decision over a fresh blocking connection: whether it was answered 200.
fn blocking_decision(target: &Target) -> bool {
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", target.port)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reply = Vec::new();
    stream.write_all(&target.post("/v1/claude", target.payload.as_bytes())).is_ok()
        && stream.read_to_end(&mut reply).is_ok()
        && reply.starts_with(b"HTTP/1.1 200")
}

/// How many `hook_server_requests_total` series `/metrics` shows.
fn request_series(target: &Target) -> usize {
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", target.port)) else { return 0 };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reply = String::new();
    if stream.write_all(&target.request("GET", "/metrics", "Connection: close\r\n", 0)).is_err()
        || stream.read_to_string(&mut reply).is_err()
    {
        return 0;
    }
    reply.lines().filter(|l| l.starts_with("hook_server_requests_total{")).count()
}

/// Asks `/v1/health` every 100 ms until `until`: (checks, misses, slowest).
fn health_checks(target: &Target, until: Instant) -> (u32, u32, Duration) {
    let request = target.request("GET", "/v1/health", "Connection: close\r\n", 0);
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], target.port));
    let (mut checks, mut misses, mut slowest) = (0, 0, Duration::ZERO);
    while Instant::now() < until {
        let start = Instant::now();
        let answered = std::net::TcpStream::connect_timeout(&addr, HEALTH_DEADLINE).is_ok_and(|mut stream| {
            let left = HEALTH_DEADLINE.saturating_sub(start.elapsed()).max(Duration::from_millis(1));
            let _ = stream.set_read_timeout(Some(left));
            let _ = stream.set_write_timeout(Some(left));
            let mut reply = Vec::new();
            stream.write_all(&request).is_ok()
                && stream.read_to_end(&mut reply).is_ok()
                && reply.starts_with(b"HTTP/1.1 200")
        });
        let took = start.elapsed();
        checks += 1;
        slowest = slowest.max(took);
        if !answered || took > HEALTH_DEADLINE {
            misses += 1;
        }
        std::thread::sleep(HEALTH_EVERY.saturating_sub(took));
    }
    (checks, misses, slowest)
}

/// Trickles a request head (`head_only`) or a body a byte per 500 ms, reconnecting whenever the
/// daemon cuts the connection, until `until`.
async fn slow_client(target: Target, head_only: bool, until: Instant, counts: Counts) {
    let body_len = 4096;
    let head = if head_only {
        b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ".to_vec()
    } else {
        target.request("POST", "/v1/claude", "", body_len)
    };
    while Instant::now() < until {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", target.port)).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        if !head_only && stream.write_all(&head).await.is_err() {
            continue;
        }
        let trickled: &[u8] = if head_only { &head } else { &[b' '; 4096] };
        let mut cut = false;
        let mut scratch = [0u8; 512];
        for byte in trickled.iter().cycle() {
            if Instant::now() >= until {
                break;
            }
            // The daemon answers (408/400) or closes when it cuts the client off.
            if tokio::time::timeout(TRICKLE, stream.read(&mut scratch)).await.is_ok() {
                cut = true;
                break;
            }
            if stream.write_all(&[*byte]).await.is_err() {
                cut = true;
                break;
            }
        }
        if cut {
            counts.slow_cut.fetch_add(1, Ordering::Relaxed);
        }
    }
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

/// One abusive request after the other, each on its own connection, until `until`.
async fn garbage_client(target: Target, mut seed: u64, pace: Option<Duration>, until: Instant, counts: Counts) {
    let mut i = seed % 9;
    while Instant::now() < until {
        i += 1;
        let hex: String = noise(&mut seed, 6).iter().map(|b| format!("{b:02x}")).collect();
        let (request, close_early) = match i % 9 {
            // Not HTTP at all.
            0 => (noise(&mut seed, 256), false),
            // Noise as a payload.
            1 => (target.post("/v1/run/preTool", &noise(&mut seed, 4096)), false),
            // Over the limit, on the route that must answer 200 anyway.
            2 => (target.post("/v1/claude", &vec![b'{'; LIMIT + 512]), false),
            // A 2 MiB length announced, 64 KiB sent, then the client goes away.
            3 => {
                let mut r = target.request("POST", "/v1/run/preTool", "Connection: close\r\n", 2 * LIMIT);
                r.extend_from_slice(&vec![b'x'; 64 << 10]);
                (r, true)
            }
            // Unknown paths and events.
            4 => (target.request("GET", &format!("/v1/{hex}/x?{hex}"), "Connection: close\r\n", 0), false),
            5 => (target.post(&format!("/v1/run/{hex}"), b"{}"), false),
            // A truncated body: 4096 announced, 100 sent, write side closed.
            6 => {
                let mut r = target.request("POST", "/v1/claude", "Connection: close\r\n", 4096);
                r.extend_from_slice(br#"{"hook_event_name":"PreToolUse","tool_input":{"command":"#);
                (r, true)
            }
            // Malformed JSON that names its event.
            7 => (target.post("/v1/claude", br#"{"hook_event_name": "PreToolUse", "tool_input": {"#), false),
            // No token.
            _ => (
                b"POST /v1/claude HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}".to_vec(),
                false,
            ),
        };
        if exchange(target.port, &request, close_early).await.is_some_and(|r| r.starts_with(b"HTTP/1.1 ")) {
            counts.garbage.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(pace) = pace {
            tokio::time::sleep(pace).await;
        }
    }
}

/// Sends `request` on a fresh connection (shutting the write side first when `close_early`)
/// and reads the answer until the daemon closes, 15 s at most.
async fn exchange(port: u16, request: &[u8], close_early: bool) -> Option<Vec<u8>> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.ok()?;
    // The daemon may answer (and close) before the whole request is written.
    let _ = stream.write_all(request).await;
    if close_early {
        let _ = stream.shutdown().await;
    }
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(15), stream.read_to_end(&mut out)).await;
    Some(out)
}

/// No-match decisions on keep-alive connections (100 per connection), until `until`.
async fn decision_client(target: Target, pace: Option<Duration>, until: Instant, counts: Counts) {
    let mut request = target.request("POST", "/v1/claude", "", target.payload.len());
    request.extend_from_slice(target.payload.as_bytes());
    while Instant::now() < until {
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", target.port)).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        for _ in 0..100 {
            if Instant::now() >= until || stream.write_all(&request).await.is_err() {
                break;
            }
            match tokio::time::timeout(Duration::from_secs(15), read_response(&mut stream)).await {
                Ok(Some(true)) => {
                    counts.decisions.fetch_add(1, Ordering::Relaxed);
                }
                _ => break,
            }
            if let Some(pace) = pace {
                tokio::time::sleep(pace).await;
            }
        }
    }
}

/// Reads one response with a Content-Length: whether it was a 200 (`None` when the
/// connection ended first).
async fn read_response(stream: &mut TcpStream) -> Option<bool> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    let end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
    let length: usize =
        head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    while buf.len() < end + length {
        let n = stream.read(&mut chunk).await.ok().filter(|n| *n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    }
    Some(head.starts_with("http/1.1 200"))
}

/// `target/<profile>/aimon-hooks` as cargo built it for this test or bench.
pub(crate) fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_aimon-hooks"))
}
