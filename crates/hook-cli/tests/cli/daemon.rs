//! A real `aimon-hooks serve` on a sandbox's home and a rewake store of the test's choosing, for
//! the fire stream and the crash test: start, stop with SIGKILL, and a server-sent-event reader.

use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::serve_process::{serve_command, wait_until};
use crate::support::Sandbox;

/// A running `aimon-hooks serve` with TCP; killed when dropped.
pub(crate) struct Daemon {
    pub(crate) child: Child,
    pub(crate) port: u16,
    pub(crate) socket: PathBuf,
    pub(crate) token: String,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

impl Daemon {
    /// Starts `serve` for `sandbox`'s home on the SQLite store `store`, trusting every project.
    pub(crate) fn start(sandbox: &Sandbox, store: &Path) -> Daemon {
        let store = format!("sqlite:{}", store.display());
        Daemon::start_with_env(sandbox, &[("AIMON_TRUST_PROJECT_HOOKS", "1"), ("AIMON_REWAKE_STORE", &store)])
    }

    /// Starts `serve` for `sandbox`'s home with these extra environment variables, on a free TCP
    /// port and the home's socket, and waits until both listen.
    pub(crate) fn start_with_env(sandbox: &Sandbox, env: &[(&str, &str)]) -> Daemon {
        let port = free_port();
        let listen = format!("127.0.0.1:{port}");
        let bin = Path::new(env!("CARGO_BIN_EXE_aimon-hooks"));
        let child = serve_command(bin, &sandbox.home(), &sandbox.project(), &["--listen", &listen])
            .envs(env.iter().copied())
            .spawn()
            .expect("aimon-hooks serve starts");
        let socket = sandbox.home().join(".aimon/serve.sock");
        // Generous: a loaded machine (the whole suite, a store with a thousand envelopes) is slow.
        wait_until(Duration::from_secs(60), "serve did not listen", || {
            TcpStream::connect(("127.0.0.1", port)).is_ok() && socket.exists()
        });
        let token = std::fs::read_to_string(sandbox.home().join(".aimon/serve.token")).expect("the token file");
        Daemon { child, port, socket, token: token.trim().to_owned() }
    }

    /// SIGKILL, and waits for the process to be gone.
    pub(crate) fn kill_9(mut self) {
        self.child.kill().expect("SIGKILL serve");
        self.child.wait().expect("reap serve");
    }

    /// SIGTERM; waits for the exit and returns how long it took.
    pub(crate) fn terminate(mut self) -> Duration {
        let sent = Instant::now();
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).expect("pid"));
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).expect("SIGTERM serve");
        self.child.wait().expect("reap serve");
        sent.elapsed()
    }

    /// Opens `path` on TCP with `auth` as the Authorization header (none when `None`).
    pub(crate) fn get_tcp(&self, path: &str, auth: Option<&str>) -> Response {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        Response::open(stream, path, auth)
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

/// An HTTP/1.1 response read as it arrives (chunked bodies decoded).
pub(crate) struct Response {
    reader: BufReader<TcpStream>,
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    chunked: bool,
    /// The bytes of a `Content-Length` body still to read.
    remaining: Option<usize>,
    text: String,
}

/// One server-sent event: its `event:` name, `id:` and `data:`.
#[derive(Debug)]
pub(crate) struct SseEvent {
    pub(crate) event: String,
    pub(crate) id: Option<String>,
    pub(crate) data: String,
}

impl SseEvent {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("event data is not JSON ({e}): {:?}", self.data))
    }
}

impl Response {
    fn open(mut stream: TcpStream, path: &str, auth: Option<&str>) -> Response {
        stream.set_read_timeout(Some(Duration::from_secs(30))).expect("read timeout");
        let auth = auth.map(|a| format!("Authorization: {a}\r\n")).unwrap_or_default();
        let head = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n{auth}\r\n");
        stream.write_all(head.as_bytes()).expect("send the request");
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).expect("status line");
        let status = line.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("status: {line:?}"));
        let mut headers = Vec::new();
        loop {
            line.clear();
            reader.read_line(&mut line).expect("header line");
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(": ") {
                headers.push((k.to_ascii_lowercase(), v.to_owned()));
            }
        }
        let chunked = headers.iter().any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        let remaining = headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok());
        Response { reader, status, headers, chunked, remaining, text: String::new() }
    }

    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Reads one more piece of the body into `self.text`; `false` at its end.
    fn read_more(&mut self) -> bool {
        if !self.chunked {
            let mut buf = [0u8; 4096];
            let room = self.remaining.map_or(buf.len(), |r| r.min(buf.len()));
            if room == 0 {
                return false;
            }
            let n = self.reader.read(&mut buf[..room]).expect("read the body");
            self.remaining = self.remaining.map(|r| r - n);
            self.text.push_str(&String::from_utf8_lossy(&buf[..n]));
            return n > 0;
        }
        let mut size = String::new();
        if self.reader.read_line(&mut size).expect("chunk size") == 0 {
            return false;
        }
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or_else(|_| panic!("chunk size: {size:?}"));
        let mut chunk = vec![0u8; size + 2];
        self.reader.read_exact(&mut chunk).expect("chunk");
        self.text.push_str(&String::from_utf8_lossy(&chunk[..size]));
        size > 0
    }

    /// Reads until the body ends or the connection closes (a stuck body fails the read timeout).
    pub(crate) fn read_to_end(&mut self) {
        while self.read_more() {}
    }

    /// The whole remaining body.
    pub(crate) fn body(mut self) -> String {
        while self.read_more() {}
        self.text
    }

    /// The next server-sent event (comments skipped).
    pub(crate) fn next_event(&mut self) -> SseEvent {
        loop {
            if let Some(end) = self.text.find("\n\n") {
                let block: String = self.text.drain(..end + 2).collect();
                let (mut event, mut id, mut data) = ("message".to_owned(), None, Vec::new());
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        event = v.trim().to_owned();
                    } else if let Some(v) = line.strip_prefix("id:") {
                        id = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push(v.strip_prefix(' ').unwrap_or(v).to_owned());
                    }
                }
                if data.is_empty() && id.is_none() {
                    continue;
                }
                return SseEvent { event, id, data: data.join("\n") };
            }
            assert!(self.read_more(), "the stream ended before the next event: {:?}", self.text);
        }
    }
}
