//! What an `http` handler declares.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

/// The request body of an http hook.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HttpBody {
    /// A string body, rendered as text: values are not escaped (R-ACT-TPL-2).
    Template(String),
    /// A JSON object or array body, rendered structurally: placeholders inside its string values
    /// are substituted and the body stays valid JSON whatever they hold.
    Structured(Value),
}

/// An http hook (R-ACT-HTTP-1).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct HttpSpec {
    /// The URL; not templated.
    pub url: String,
    /// The method, `POST` by default.
    pub method: String,
    /// Request headers; values are template-rendered.
    pub headers: BTreeMap<String, String>,
    /// The body; `None` sends the hook's JSON payload (as a command hook's stdin), like Claude Code.
    pub body: Option<HttpBody>,
    /// Names `${env.X}` may render.
    pub allowed_env_vars: Vec<String>,
    /// The hook's deadline and declared execution budget; `None` = [`crate::DEFAULT_TIMEOUT`].
    pub timeout: Option<Duration>,
    /// Block on decision events when the hook gives no usable decision (R-CFG-4c).
    pub fail_closed: bool,
}

impl HttpSpec {
    /// A `POST` to `url` with no headers, the payload as body, the default timeout, failing open.
    pub fn new(url: impl Into<String>) -> Self {
        HttpSpec {
            url: url.into(),
            method: "POST".into(),
            headers: BTreeMap::new(),
            body: None,
            allowed_env_vars: Vec::new(),
            timeout: None,
            fail_closed: false,
        }
    }

    /// Sets the method.
    pub fn with_method(mut self, method: impl Into<String>) -> Self {
        self.method = method.into();
        self
    }

    /// Adds a header (its value is a template).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }

    /// Sets all headers.
    pub fn with_headers(mut self, headers: BTreeMap<String, String>) -> Self {
        self.headers = headers;
        self
    }

    /// Sets the body.
    pub fn with_body(mut self, body: HttpBody) -> Self {
        self.body = Some(body);
        self
    }

    /// Sets `allowedEnvVars`.
    pub fn with_allowed_env_vars(mut self, names: Vec<String>) -> Self {
        self.allowed_env_vars = names;
        self
    }
}

crate::answer::spec_setters!(HttpSpec);
