//! The bearer-token check of TCP requests: a missing or wrong `Authorization` header is a 401.

use axum::body::Body;
use axum::http::{Request, Response, StatusCode, header};
use tower_http::validate_request::ValidateRequest;

/// Accepts requests carrying `Authorization: Bearer <token>`; compares in constant time.
#[derive(Debug, Clone)]
pub(crate) struct Bearer {
    expected: Vec<u8>,
}

impl Bearer {
    pub(crate) fn new(token: &str) -> Self {
        Bearer { expected: format!("Bearer {token}").into_bytes() }
    }

    fn accepts(&self, given: &[u8]) -> bool {
        given.len() == self.expected.len()
            && given.iter().zip(&self.expected).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

impl<B> ValidateRequest<B> for Bearer {
    type ResponseBody = Body;

    fn validate(&mut self, request: &mut Request<B>) -> Result<(), Response<Body>> {
        match request.headers().get(header::AUTHORIZATION) {
            Some(value) if self.accepts(value.as_bytes()) => Ok(()),
            _ => {
                let mut response = Response::new(Body::from("{\"error\":\"a valid bearer token is required\"}"));
                *response.status_mut() = StatusCode::UNAUTHORIZED;
                response.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
                response
                    .headers_mut()
                    .insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
                Err(response)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_header_is_accepted() {
        let bearer = Bearer::new("abc");
        for (given, ok) in
            [("Bearer abc", true), ("Bearer abd", false), ("Bearer ab", false), ("abc", false), ("", false)]
        {
            assert_eq!(bearer.accepts(given.as_bytes()), ok, "{given}");
        }
    }
}
