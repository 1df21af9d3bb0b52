//! The API key a server is started with: the one key its provider stand-ins accept, and what
//! guards its other APIs. Clients send it as `Authorization: apiKey KEY` (IonQ's way) or
//! `Authorization: Bearer KEY`.

use std::fmt;

use thiserror::Error;

/// A server API key. Its `Debug` output is redacted.
#[derive(Clone, PartialEq, Eq)]
pub struct ServerKey(String);

/// A key that cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("the API key must be non-empty visible ASCII")]
pub struct KeyError;

impl ServerKey {
    /// A key: non-empty visible ASCII.
    pub fn new(key: &str) -> Result<ServerKey, KeyError> {
        let key = key.trim();
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(KeyError);
        }
        Ok(ServerKey(key.to_owned()))
    }

    /// Whether `candidate` is this key; takes the same time wherever they differ.
    pub fn matches(&self, candidate: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), candidate.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    /// Whether an `Authorization` header's value carries this key.
    pub fn authorizes(&self, authorization: Option<&str>) -> bool {
        authorization
            .and_then(|v| v.strip_prefix("apiKey ").or_else(|| v.strip_prefix("Bearer ")))
            .map(str::trim)
            .is_some_and(|given| self.matches(given))
    }
}

impl fmt::Debug for ServerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ServerKey(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_checked_compared_and_never_shown() {
        assert_eq!(ServerKey::new(" \t"), Err(KeyError));
        assert_eq!(ServerKey::new("a\u{7f}b"), Err(KeyError));
        let key = ServerKey::new(" secret ").expect("a key");
        assert!(key.matches("secret") && !key.matches("secreT") && !key.matches("secret2"));
        assert!(key.authorizes(Some("apiKey secret")) && key.authorizes(Some("Bearer  secret ")));
        assert!(!key.authorizes(Some("secret")) && !key.authorizes(None));
        assert!(!format!("{key:?}").contains("secret"));
    }
}
