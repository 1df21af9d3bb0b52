//! IBM Cloud IAM's API-key exchange (`POST /identity/token`), as the stand-in answers it.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::error::IamError;
use super::{APIKEY_GRANT, Tokens};

/// `POST /identity/token`.
pub(super) async fn token(
    State(tokens): State<Arc<Tokens>>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, IamError> {
    let form_type = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if !form_type.starts_with("application/x-www-form-urlencoded") {
        return Err(IamError::NotForm);
    }
    let form = form_fields(&body);
    if form.get("grant_type").map(String::as_str) != Some(APIKEY_GRANT) {
        return Err(IamError::UnsupportedGrant);
    }
    let key = form.get("apikey").map(String::as_str).unwrap_or("");
    let accepted = match &tokens.options.key {
        Some(expected) => expected.matches(key),
        None => !key.is_empty(),
    };
    if !accepted {
        return Err(IamError::UnknownKey);
    }
    let expires_in = tokens.options.token_lifetime.as_secs();
    let issued_at = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let expiration = issued_at + expires_in;
    let access = jwt(issued_at, expiration);
    let mut issued = tokens.issued.lock().unwrap_or_else(|p| p.into_inner());
    let now = Instant::now();
    issued.retain(|_, expiry| *expiry > now);
    issued.insert(access.clone(), now + tokens.options.token_lifetime);
    Ok(axum::Json(json!({
        "access_token": access,
        "refresh_token": "not_supported",
        "token_type": "Bearer",
        "expires_in": expires_in,
        "expiration": expiration,
        "scope": "ibm openid",
    }))
    .into_response())
}

/// An access token shaped as IAM's: a JWT (`header.claims.signature`, base64url) whose claims
/// give `iat` and `exp`, which IBM's own SDKs decode to schedule a refresh. The signature is
/// random bytes: nothing verifies it but this server, by looking the token up.
fn jwt(issued_at: u64, expiration: u64) -> String {
    let header = json!({ "alg": "RS256", "typ": "JWT", "kid": "qchess" });
    let claims = json!({
        "iam_id": "qchess-serve", "sub": "qchess-serve", "iat": issued_at, "exp": expiration,
        "jti": format!("{:032x}", rand::random::<u128>()),
    });
    let signature: [u8; 32] = rand::random();
    [base64url(header.to_string().as_bytes()), base64url(claims.to_string().as_bytes()), base64url(&signature)]
        .join(".")
}

/// `bytes` in unpadded base64url.
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let word = chunk.iter().enumerate().fold(0u32, |word, (i, &b)| word | u32::from(b) << (16 - 8 * i));
        for sextet in 0..=chunk.len() {
            text.push(char::from(ALPHABET[(word >> (18 - 6 * sextet) & 63) as usize]));
        }
    }
    text
}

/// The fields of a form body (`a=b&c=d`, `+` and `%XX` decoded).
fn form_fields(body: &[u8]) -> HashMap<String, String> {
    let decode = |text: &[u8]| {
        let hex = |byte: u8| (byte as char).to_digit(16);
        let mut out = Vec::with_capacity(text.len());
        let mut i = 0;
        while i < text.len() {
            match (text[i], text.get(i + 1).copied().and_then(hex), text.get(i + 2).copied().and_then(hex)) {
                (b'+', _, _) => out.push(b' '),
                (b'%', Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    i += 2;
                }
                (byte, _, _) => out.push(byte),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    };
    body.split(|&b| b == b'&')
        .filter_map(|pair| {
            let at = pair.iter().position(|&b| b == b'=')?;
            Some((decode(&pair[..at]), decode(&pair[at + 1..])))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_matches_the_rfc_vectors() {
        for (bytes, text) in
            [(&b""[..], ""), (b"f", "Zg"), (b"fo", "Zm8"), (b"foo", "Zm9v"), (b"foob", "Zm9vYg"), (b"fooba", "Zm9vYmE")]
        {
            assert_eq!(base64url(bytes), text);
        }
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
    }

    #[test]
    fn tokens_are_jwts_with_their_times() {
        let token = jwt(1_000, 4_600);
        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(parts.len(), 3, "{token}");
        assert!(token.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)), "{token}");
        let claims = base64url(json!({}).to_string().as_bytes());
        assert_eq!(claims, "e30");
        assert!(parts[1].starts_with(&base64url(b"{\"exp\":4600,\"iam_id\"")[..20]), "{token}");
    }
}
