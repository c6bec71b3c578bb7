//! `aimon-hooks log`: reads the decision log (hook-config writes it), oldest line first.

use std::io::{BufReader, Read as _, Seek as _, SeekFrom};
use std::os::unix::fs::MetadataExt as _;
use std::path::Path;
use std::time::Duration;

use anyhow::Context as _;
use hook_config::{DecisionRecord, LogOptions};

use crate::cli::{LogArgs, TierArgs};

/// How often `--follow` looks for new lines.
const FOLLOW_EVERY: Duration = Duration::from_millis(200);

/// `log [--follow] [--json] [--session ID]`.
pub(crate) async fn command(args: &LogArgs) -> anyhow::Result<u8> {
    let home = TierArgs { project: None, home: args.home.clone() }.home_dir();
    let Some(path) = crate::env::Env::get().decision_log_path(home.as_deref()) else {
        anyhow::bail!("the decision log is off (AIMON_DECISION_LOG=off) or there is no home directory");
    };
    let options = LogOptions::new(&path);
    let mut printer = Printer { args, bad_lines: 0 };
    for file in options.files() {
        match std::fs::read_to_string(&file) {
            Ok(text) => text.lines().for_each(|line| printer.line(line, &file)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", file.display())),
        }
    }
    if !args.follow {
        if !path.exists() && printer.bad_lines == 0 {
            eprintln!("no decisions logged yet ({} does not exist)", path.display());
        }
        return Ok(0);
    }
    follow(&path, &mut printer).await
}

struct Printer<'a> {
    args: &'a LogArgs,
    bad_lines: usize,
}

impl Printer<'_> {
    fn line(&mut self, line: &str, file: &Path) {
        if line.trim().is_empty() {
            return;
        }
        let record: DecisionRecord = match hook_config::parse_line(line) {
            Ok(record) => record,
            Err(e) => {
                self.bad_lines += 1;
                eprintln!("warning: {}: a line that is not a decision was skipped ({e})", file.display());
                return;
            }
        };
        if self.args.session.as_deref().is_some_and(|s| record.session.as_deref() != Some(s)) {
            return;
        }
        if self.args.json {
            println!("{line}");
        } else {
            println!("{}", record.render());
        }
    }
}

/// Prints the lines appended to `path` from its current end on, across rotations.
async fn follow(path: &Path, printer: &mut Printer<'_>) -> anyhow::Result<u8> {
    let mut position = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut inode = std::fs::metadata(path).map(|m| m.ino()).ok();
    let mut partial = String::new();
    loop {
        tokio::time::sleep(FOLLOW_EVERY).await;
        let Ok(meta) = std::fs::metadata(path) else { continue };
        if Some(meta.ino()) != inode || meta.len() < position {
            // Rotated: the lines written to the old file after our last look are in `.1`.
            if let Some(old) = inode.filter(|_| position > 0) {
                let rotated = LogOptions::new(path).files()[1].clone();
                if std::fs::metadata(&rotated).is_ok_and(|m| m.ino() == old) {
                    read_from(&rotated, position, &mut partial, printer)?;
                }
            }
            inode = Some(meta.ino());
            position = 0;
            partial.clear();
        }
        if meta.len() > position {
            position = read_from(path, position, &mut partial, printer)?;
        }
    }
}

/// Prints the whole lines of `path` from byte `from`; returns the new position.
fn read_from(path: &Path, from: u64, partial: &mut String, printer: &mut Printer<'_>) -> anyhow::Result<u64> {
    let mut file = std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    file.seek(SeekFrom::Start(from))?;
    let mut text = String::new();
    let read = BufReader::new(file).read_to_string(&mut text)?;
    partial.push_str(&text);
    let complete = partial.rfind('\n').map_or(0, |i| i + 1);
    let lines: String = partial.drain(..complete).collect();
    for line in lines.lines() {
        printer.line(line, path);
    }
    Ok(from + read as u64)
}
