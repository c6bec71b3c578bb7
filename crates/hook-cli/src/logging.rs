//! Logging to stderr (R-CLI-1, R-CLI-8): one line per event, `WARN hooks: …`.
//!
//! The level comes first, then the message exactly as the library wrote it; a diagnostic's
//! location (`file`, `line`, `column` fields) is appended as ` at FILE:LINE:COL`. Other fields
//! are shown only with `-v`. Every WARN line reads `WARN hooks: …` (R-CLI-1): a warning whose
//! text does not already start with `hooks:` (a few runtime warnings of the action and executor
//! layers) gets the prefix, the text itself unchanged.

use std::fmt::{self, Write as _};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// Installs the stderr subscriber: WARN and above by default, `-v` per step more, `RUST_LOG` wins.
/// Without `RUST_LOG` a level is all there is to check, so its directive parser is not built (a
/// tenth of a `run` that matches nothing).
pub(crate) fn init(verbose: u8) {
    let level = match verbose {
        0 => LevelFilter::WARN,
        1 => LevelFilter::INFO,
        2 => LevelFilter::DEBUG,
        _ => LevelFilter::TRACE,
    };
    let subscriber =
        tracing_subscriber::fmt().with_writer(std::io::stderr).event_format(LineFormat { verbose: verbose > 0 });
    match EnvFilter::try_from_default_env() {
        Ok(filter) => subscriber.with_env_filter(filter).init(),
        Err(_) => subscriber.with_max_level(level).init(),
    }
}

struct LineFormat {
    verbose: bool,
}

impl<S, N> FormatEvent<S, N> for LineFormat
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(&self, _ctx: &FmtContext<'_, S, N>, mut writer: Writer<'_>, event: &Event<'_>) -> fmt::Result {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let level = *event.metadata().level();
        let prefix = if level == Level::WARN && !fields.message.starts_with("hooks:") { "hooks: " } else { "" };
        write!(writer, "{level} {prefix}{}", fields.message)?;
        if let Some(file) = &fields.file {
            write!(writer, " at {file}")?;
            if let Some(line) = &fields.line {
                write!(writer, ":{line}")?;
                if let Some(column) = &fields.column {
                    write!(writer, ":{column}")?;
                }
            }
        }
        if self.verbose {
            for (name, value) in &fields.rest {
                write!(writer, " {name}={value}")?;
            }
        }
        writeln!(writer)
    }
}

#[derive(Default)]
struct Fields {
    message: String,
    file: Option<String>,
    line: Option<String>,
    column: Option<String>,
    rest: Vec<(&'static str, String)>,
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        let mut text = String::new();
        let _ = write!(text, "{value:?}");
        self.store(field, text);
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.store(field, value.to_owned());
    }
}

impl Fields {
    fn store(&mut self, field: &Field, text: String) {
        match field.name() {
            "message" => self.message = text,
            "file" => self.file = Some(text),
            "line" => self.line = Some(text),
            "column" => self.column = Some(text),
            name => self.rest.push((name, text)),
        }
    }
}
