//! What an `http` handler declares.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

/// The request body of an http hook: a template string, or a JSON object or array.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[serde(untagged)]
#[non_exhaustive]
pub enum HttpBody {
    /// A string body, rendered as text: values are not escaped (R-ACT-TPL-2).
    Template(String),
    /// A JSON object or array body, rendered structurally: placeholders inside its string values
    /// are substituted and the body stays valid JSON whatever they hold.
    Structured(#[schemars(with = "StructuredBody")] Value),
}

/// The schema of a structured body: an object or an array.
#[derive(schemars::JsonSchema)]
#[serde(untagged)]
#[expect(dead_code, reason = "a schema-only type: schemars reads its variants")]
enum StructuredBody {
    Object(serde_json::Map<String, Value>),
    Array(Vec<Value>),
}

impl HttpBody {
    /// The body as written in hooks.json: a string template or the structured value.
    pub fn to_value(&self) -> Value {
        match self {
            HttpBody::Template(text) => Value::String(text.clone()),
            HttpBody::Structured(value) => value.clone(),
        }
    }

    /// A hooks.json body: a string is a template, an object or an array is structured;
    /// `None` for anything else.
    pub fn from_value(value: Value) -> Option<Self> {
        match value {
            Value::String(text) => Some(HttpBody::Template(text)),
            Value::Object(_) | Value::Array(_) => Some(HttpBody::Structured(value)),
            _ => None,
        }
    }
}

fn is_post(method: &str) -> bool {
    method == "POST"
}

/// An http hook (R-ACT-HTTP-1).
///
/// Its serde and schema form is the `http` handler's own fields in hooks.json; `timeout` and
/// `failClosed` are the handler's common fields, which hook-config owns.
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HttpSpec {
    /// The URL (not templated).
    #[schemars(pattern(r"\S"))]
    pub url: String,
    /// The HTTP method, `POST` by default.
    #[serde(default = "post", skip_serializing_if = "is_post")]
    #[schemars(pattern(r"\S"))]
    pub method: String,
    /// Request headers; values are template-rendered (`${tool_input.x}`, `${env.X}`,
    /// `${context.x}`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// The body; `None` sends the hook's JSON payload (as a command hook's stdin), like Claude Code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<HttpBody>,
    /// Environment variables `${env.X}` may render.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_env_vars: Vec<String>,
    /// The hook's deadline and declared execution budget; `None` = [`crate::DEFAULT_TIMEOUT`].
    #[serde(skip)]
    pub timeout: Option<Duration>,
    /// Block on decision events when the hook gives no usable decision (R-CFG-4c).
    #[serde(skip)]
    pub fail_closed: bool,
}

fn post() -> String {
    "POST".to_owned()
}

impl HttpSpec {
    /// A `POST` to `url` with no headers, the payload as body, the default timeout, failing open.
    pub fn new(url: impl Into<String>) -> Self {
        HttpSpec {
            url: url.into(),
            method: post(),
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
