//! The writer thread: formats records, appends them (mode 0600) and rotates between two lines.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write as _};
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, OnceLock};

use super::{AUDIT, DecisionRecord, ENFORCED, INPUT_LIMIT, LogOptions, LogStats, Msg, Pending, rotated};

/// A file hooks were built from, as it was loaded: its path, the SHA-256 of that text, and the
/// index of where each of its values starts, built the first time one of its hooks is located
/// (then shared by all of them).
#[derive(Debug)]
pub(crate) struct SourceFile {
    pub(crate) path: PathBuf,
    pub(crate) sha256: String,
    index: OnceLock<Option<crate::position::PositionIndex>>,
}

impl SourceFile {
    pub(crate) fn new(path: PathBuf, sha256: String) -> Self {
        SourceFile { path, sha256, index: OnceLock::new() }
    }

    /// The line where the value at `pointer` starts, when the file still has the loaded text.
    fn line_of(&self, pointer: &str) -> Option<usize> {
        let index = self.index.get_or_init(|| {
            let text = std::fs::read_to_string(&self.path).ok()?;
            (crate::trust::sha256_hex(text.as_bytes()) == self.sha256)
                .then(|| crate::position::PositionIndex::new(&text))
        });
        index.as_ref().map(|index| index.value(pointer).line)
    }
}

/// Where a hook came from: its file and the JSON pointer of its handler there. The line is
/// found on first use (by the writer, off the decision's path), from the file as it was loaded.
#[derive(Debug)]
pub(crate) struct Located {
    pub(crate) file: Arc<SourceFile>,
    /// The handler's pointer; `None` for a hook whose file has no lines of hooks.json (SKILL.md).
    pub(crate) pointer: Option<Arc<str>>,
    line: OnceLock<Option<usize>>,
}

impl Located {
    pub(crate) fn new(file: Arc<SourceFile>, pointer: Option<Arc<str>>) -> Self {
        Located { file, pointer, line: OnceLock::new() }
    }

    /// `file:line`, or the file alone when the line cannot be told (the file changed since).
    pub(crate) fn render(&self) -> String {
        let line = self.line.get_or_init(|| self.file.line_of(self.pointer.as_deref()?));
        match line {
            Some(line) => format!("{}:{line}", self.file.path.display()),
            None => self.file.path.display().to_string(),
        }
    }
}

/// How long the writer gathers lines after the first of a batch before it writes them: a line
/// reaches the file at most this late, and a busy daemon's senders rarely have to wake the writer.
const LINGER: std::time::Duration = std::time::Duration::from_millis(10);

/// Starts the writer thread of `options`; it sends on `done` once every sender is gone and
/// its last lines are written.
pub(super) fn spawn(
    options: LogOptions,
    rx: Receiver<Msg>,
    stats: Arc<LogStats>,
    done: SyncSender<()>,
) -> std::io::Result<()> {
    std::thread::Builder::new().name("aimon-decision-log".into()).spawn(move || {
        let mut writer = Writer::new(options, stats);
        while let Ok(msg) = rx.recv() {
            // Wait a little for more lines unless somebody waits for them: the lines of a busy
            // moment then cost one write and no wake-up each, and a flush is answered at once,
            // not after the window.
            let deadline = std::time::Instant::now() + LINGER;
            let mut waited_for = matches!(msg, Msg::Flush(_));
            writer.handle(msg);
            while !waited_for {
                let Ok(msg) = rx.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) else {
                    break;
                };
                waited_for = matches!(msg, Msg::Flush(_));
                writer.handle(msg);
            }
            while let Ok(msg) = rx.try_recv() {
                writer.handle(msg);
            }
            writer.flush();
        }
        writer.flush();
        let _ = done.try_send(());
    })?;
    Ok(())
}

/// Appends records to the files of one log: the writer thread's, or a one-shot log's own.
pub(super) struct Writer {
    options: LogOptions,
    out: Option<BufWriter<File>>,
    /// The current file's size.
    size: u64,
    stats: Arc<LogStats>,
}

impl Writer {
    /// A writer of `options`; the file is opened on the first line.
    pub(super) fn new(options: LogOptions, stats: Arc<LogStats>) -> Self {
        Writer { options, out: None, size: 0, stats }
    }

    /// How many records a one-shot log keeps before it drops more.
    pub(super) fn capacity(&self) -> usize {
        self.options.capacity.max(1)
    }

    /// Formats and appends one record (counted written, or failed).
    pub(super) fn record(&mut self, pending: &Pending) {
        let mut line = serde_json::to_vec(&record(pending)).unwrap_or_default();
        line.push(b'\n');
        match self.write(&line) {
            Ok(()) => self.stats.written.fetch_add(1, Ordering::Relaxed),
            Err(e) => {
                tracing::debug!("hooks: a decision log line was dropped: {e}");
                self.out = None;
                self.stats.failed.fetch_add(1, Ordering::Relaxed)
            }
        };
    }

    fn handle(&mut self, msg: Msg) {
        match msg {
            Msg::Record(pending) => self.record(&pending),
            Msg::Flush(ack) => {
                self.flush();
                let _ = ack.try_send(());
            }
        }
    }

    pub(super) fn flush(&mut self) {
        if let Some(out) = &mut self.out
            && out.flush().is_err()
        {
            self.stats.failed.fetch_add(1, Ordering::Relaxed);
            self.out = None;
        }
    }

    fn write(&mut self, line: &[u8]) -> std::io::Result<()> {
        if self.out.is_some() && self.size > 0 && self.size + line.len() as u64 > self.options.max_bytes {
            self.rotate()?;
        }
        if self.out.is_none() {
            let (file, size) = open(&self.options.path)?;
            self.size = size;
            self.out = Some(BufWriter::with_capacity(64 * 1024, file));
            if size > 0 && size + line.len() as u64 > self.options.max_bytes {
                self.rotate()?;
            }
        }
        let out = self.out.as_mut().ok_or_else(|| std::io::Error::other("the log file is not open"))?;
        out.write_all(line)?;
        self.size += line.len() as u64;
        Ok(())
    }

    /// `.1` → `.2`, the current file → `.1`, a new current file: three files in all.
    fn rotate(&mut self) -> std::io::Result<()> {
        if let Some(mut out) = self.out.take() {
            out.flush()?;
        }
        let path = &self.options.path;
        let (one, two) = (rotated(path, 1), rotated(path, 2));
        if one.exists() {
            std::fs::rename(&one, &two)?;
        }
        std::fs::rename(path, &one)?;
        let (file, size) = open(path)?;
        self.out = Some(BufWriter::with_capacity(64 * 1024, file));
        self.size = size;
        self.stats.rotations.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

/// Opens `path` for appending with mode 0600 (and makes an existing file 0600); its size.
fn open(path: &Path) -> std::io::Result<(File, u64)> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let file = OpenOptions::new().create(true).append(true).mode(0o600).open(path)?;
    let meta = file.metadata()?;
    if meta.permissions().mode() & 0o777 != 0o600 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok((file, meta.len()))
}

fn record(p: &Pending) -> DecisionRecord {
    DecisionRecord {
        time: humantime::format_rfc3339_millis(p.time).to_string(),
        client: p.client.to_owned(),
        session: p.session.clone(),
        event: p.event.name().to_owned(),
        tool: p.tool.as_ref().map(|(name, _)| name.clone()),
        input: p.tool.as_ref().map(|(_, input)| cut(&input.to_string(), INPUT_LIMIT)),
        hook: p.hook.clone(),
        at: p.at.as_ref().map(|at| at.render()),
        outcome: p.outcome.to_owned(),
        reason: p.reason.clone(),
        elapsed_ms: p.elapsed.as_secs_f64() * 1000.0,
        mode: if p.audit { AUDIT } else { ENFORCED }.to_owned(),
    }
}

/// `text` cut to at most `limit` bytes on a character boundary, `…` marking a cut.
pub(crate) fn cut(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut end = limit.saturating_sub('…'.len_utf8());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}
