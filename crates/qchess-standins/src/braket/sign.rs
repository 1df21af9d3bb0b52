//! Checking a request's AWS Signature Version 4 as AWS does: the `Authorization` header names
//! the key, the day, the region, the service and the headers signed; the signature is computed
//! again over the request as it arrived with the client's own signer
//! ([`qchess_remote::braket::sigv4`]) and the server's secret, and compared. A request signed
//! more than 15 minutes before or after the server's clock is refused as expired, as AWS
//! refuses it.

use qchess_remote::braket::sigv4;
use thiserror::Error;

/// How far a request's `x-amz-date` may be from the server's clock, in seconds.
pub const MAX_SKEW_SECONDS: u64 = 15 * 60;

/// A signature refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SignatureError {
    /// The server has no key pair to check signatures with.
    #[error(
        "this server has no AWS key pair: start qchess serve with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or --aws-access-key-id and --aws-secret-access-key)"
    )]
    NoKeys,
    /// No `Authorization` header, or not a SigV4 one.
    #[error("Missing Authentication Token")]
    Missing,
    /// An access key id the server does not have.
    #[error("The security token included in the request is invalid.")]
    UnknownKey,
    /// The request was signed for another service than the one it reached.
    #[error("Credential should be scoped to correct service: '{expected}'.")]
    WrongService {
        /// The service it reached.
        expected: &'static str,
    },
    /// `x-amz-date` is missing or more than [`MAX_SKEW_SECONDS`] from now.
    #[error("Signature expired: {date} is now earlier than {now} ({now} - 15 min.)")]
    Expired {
        /// The request's date.
        date: String,
        /// The server's.
        now: String,
    },
    /// The signature is not the one the server computes.
    #[error(
        "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method."
    )]
    Mismatch,
}

impl SignatureError {
    /// The error type Braket answers.
    pub fn code(&self) -> &'static str {
        match self {
            SignatureError::Missing => "MissingAuthenticationTokenException",
            SignatureError::NoKeys => "UnrecognizedClientException",
            SignatureError::UnknownKey => "UnrecognizedClientException",
            SignatureError::WrongService { .. } | SignatureError::Expired { .. } | SignatureError::Mismatch => {
                "InvalidSignatureException"
            }
        }
    }

    /// The code S3 and STS answer.
    pub fn xml_code(&self) -> &'static str {
        match self {
            SignatureError::Missing => "AccessDenied",
            SignatureError::UnknownKey | SignatureError::NoKeys => "InvalidAccessKeyId",
            SignatureError::Expired { .. } => "RequestTimeTooSkewed",
            SignatureError::WrongService { .. } | SignatureError::Mismatch => "SignatureDoesNotMatch",
        }
    }
}

/// The key pair requests must be signed with.
#[derive(Clone, PartialEq, Eq)]
pub struct KeyPair {
    /// The access key id.
    pub access_key_id: String,
    /// The secret access key.
    pub secret: String,
}

impl std::fmt::Debug for KeyPair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeyPair({}, <redacted>)", self.access_key_id)
    }
}

/// One request as it arrived.
#[derive(Debug, Clone, Copy)]
pub struct Arrived<'a> {
    /// `GET`, `POST`, `PUT`.
    pub method: &'a str,
    /// The whole path as sent, percent-encoded.
    pub path: &'a str,
    /// The query as sent (`a=b&c=d`), or empty.
    pub query: &'a str,
    /// Every header, names lower-case.
    pub headers: &'a [(String, String)],
    /// The body.
    pub body: &'a [u8],
}

impl Arrived<'_> {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// Checks `request`, which reached `service` (`braket`, `s3`, `sts`), against `keys` at `now`
/// (seconds since 1970).
pub fn verify(request: &Arrived<'_>, service: &'static str, keys: &KeyPair, now: u64) -> Result<(), SignatureError> {
    let header = request.header("authorization").ok_or(SignatureError::Missing)?;
    let rest = header.strip_prefix("AWS4-HMAC-SHA256 ").ok_or(SignatureError::Missing)?;
    let field = |name: &str| {
        rest.split(',').map(str::trim).find_map(|part| part.strip_prefix(name).and_then(|v| v.strip_prefix('=')))
    };
    let (credential, signed, signature) = match (field("Credential"), field("SignedHeaders"), field("Signature")) {
        (Some(c), Some(h), Some(s)) => (c, h, s),
        _ => return Err(SignatureError::Missing),
    };
    let parts: Vec<&str> = credential.split('/').collect();
    let [key, _day, region, signed_service, "aws4_request"] = parts[..] else {
        return Err(SignatureError::Missing);
    };
    if key != keys.access_key_id {
        return Err(SignatureError::UnknownKey);
    }
    if signed_service != service {
        return Err(SignatureError::WrongService { expected: service });
    }
    let now_text = sigv4::amz_date(now);
    let date = request.header("x-amz-date").unwrap_or_default();
    let fresh = parse_amz_date(date).is_some_and(|at| at.abs_diff(now) <= MAX_SKEW_SECONDS);
    if !fresh {
        return Err(SignatureError::Expired { date: date.to_owned(), now: now_text });
    }
    let headers: Vec<(String, String)> =
        signed.split(';').map(|name| (name.to_owned(), request.header(name).unwrap_or_default().to_owned())).collect();
    let body_hash = sigv4::sha256_hex(request.body);
    let payload_hash = match request.header("x-amz-content-sha256") {
        Some(given) if service == "s3" => given.to_owned(),
        _ => body_hash,
    };
    let query = query_pairs(request.query);
    let signable = sigv4::Signable {
        method: request.method,
        path: request.path,
        query: &query,
        headers: &headers,
        payload_hash: &payload_hash,
    };
    let scope = sigv4::Scope { access_key_id: key, secret: &keys.secret, region, service, amz_date: date };
    let expected = sigv4::authorization(&signable, &scope);
    let computed = expected.rsplit_once("Signature=").map_or("", |(_, s)| s);
    if computed.len() == signature.len()
        && computed.bytes().zip(signature.bytes()).fold(0, |acc, (a, b)| acc | (a ^ b)) == 0
    {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

/// The decoded pairs of a query string.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(name), percent_decode(value))
        })
        .collect()
}

/// `text` with `%XX` decoded (and `+` left alone, as SigV4 leaves it).
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Seconds since 1970 of a `YYYYMMDDTHHMMSSZ` date.
fn parse_amz_date(text: &str) -> Option<u64> {
    let b = text.as_bytes();
    if b.len() != 16 || b[8] != b'T' || b[15] != b'Z' {
        return None;
    }
    let iso =
        format!("{}-{}-{}T{}:{}:{}Z", &text[..4], &text[4..6], &text[6..8], &text[9..11], &text[11..13], &text[13..15]);
    qchess_remote::braket::credentials::parse_timestamp(&iso)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> KeyPair {
        KeyPair { access_key_id: "AKIDEXAMPLE".into(), secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into() }
    }

    /// A GET signed by the client's signer at `seconds`.
    fn signed(seconds: u64, secret: &str) -> Vec<(String, String)> {
        let date = sigv4::amz_date(seconds);
        let mut headers = vec![("host".to_owned(), "127.0.0.1:9".to_owned()), ("x-amz-date".to_owned(), date.clone())];
        let request = sigv4::Signable {
            method: "GET",
            path: "/braket/device/arn%3Ax",
            query: &[],
            headers: &headers,
            payload_hash: sigv4::EMPTY_SHA256,
        };
        let scope = sigv4::Scope {
            access_key_id: "AKIDEXAMPLE",
            secret,
            region: "us-east-1",
            service: "braket",
            amz_date: &date,
        };
        headers.push(("authorization".to_owned(), sigv4::authorization(&request, &scope)));
        headers
    }

    fn arrived(headers: &[(String, String)]) -> Arrived<'_> {
        Arrived { method: "GET", path: "/braket/device/arn%3Ax", query: "", headers, body: b"" }
    }

    #[test]
    fn the_clients_signature_is_accepted_and_every_fault_named() {
        let now = 1_790_000_000;
        let good = signed(now, &keys().secret);
        assert_eq!(verify(&arrived(&good), "braket", &keys(), now + 60), Ok(()));
        assert_eq!(verify(&arrived(&good), "s3", &keys(), now), Err(SignatureError::WrongService { expected: "s3" }));
        assert!(matches!(verify(&arrived(&good), "braket", &keys(), now + 901), Err(SignatureError::Expired { .. })));
        let wrong = signed(now, "another secret");
        assert_eq!(verify(&arrived(&wrong), "braket", &keys(), now), Err(SignatureError::Mismatch));
        assert_eq!(verify(&arrived(&good[..2]), "braket", &keys(), now), Err(SignatureError::Missing));
        let other = KeyPair { access_key_id: "AKIDOTHER".into(), secret: keys().secret };
        assert_eq!(verify(&arrived(&good), "braket", &other, now), Err(SignatureError::UnknownKey));
        let mut tampered = good.clone();
        tampered[0].1 = "127.0.0.1:10".into();
        assert_eq!(verify(&arrived(&tampered), "braket", &keys(), now), Err(SignatureError::Mismatch));
    }

    #[test]
    fn queries_decode_and_dates_read() {
        assert_eq!(
            query_pairs("list-type=2&prefix=a%2Fb"),
            vec![("list-type".into(), "2".into()), ("prefix".into(), "a/b".into())]
        );
        assert_eq!(parse_amz_date("20150830T123600Z"), Some(1_440_938_160));
        assert_eq!(parse_amz_date("2015-08-30"), None);
    }
}
