//! AWS Signature Version 4 over one HTTP request, as AWS specifies it ("Create a signed AWS API
//! request"): a canonical request (method, path, sorted query, sorted lower-case headers, the
//! hash of the body), a string to sign over its hash and the credential scope
//! (`DATE/REGION/SERVICE/aws4_request`), a signing key derived from the secret by four HMAC-SHA256
//! steps, and the `Authorization` header. Checked against AWS's published test vectors here and
//! against botocore's signer by the Braket tests in `tests/python/braket`.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

/// The hex SHA-256 of an empty body.
pub const EMPTY_SHA256: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// One request to sign, as it will be sent.
#[derive(Debug, Clone)]
pub struct Signable<'a> {
    /// `GET`, `POST`, `PUT`.
    pub method: &'a str,
    /// The path as sent, percent-encoded (`/quantum-task/arn%3Aaws...`).
    pub path: &'a str,
    /// The query's pairs, decoded.
    pub query: &'a [(String, String)],
    /// Every header to sign, names in any case (`host` and `x-amz-date` among them).
    pub headers: &'a [(String, String)],
    /// The hex SHA-256 of the body.
    pub payload_hash: &'a str,
}

/// Who signs, where and when.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    /// The access key id.
    pub access_key_id: &'a str,
    /// The secret access key.
    pub secret: &'a str,
    /// The region (`eu-north-1`).
    pub region: &'a str,
    /// The signing name (`braket`, `s3`, `sts`).
    pub service: &'a str,
    /// `YYYYMMDDTHHMMSSZ`, the request's `x-amz-date`.
    pub amz_date: &'a str,
}

/// The hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hmac(key: &[u8], data: &str) -> Vec<u8> {
    // HMAC takes keys of any length.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC accepts any key length");
    mac.update(data.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// `text` percent-encoded as SigV4 asks: everything but `A-Z a-z 0-9 - _ . ~`, and `/` too
/// unless `keep_slash`.
pub fn uri_encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(byte as char),
            b'/' if keep_slash => out.push('/'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// The canonical request. S3 signs the path as sent; every other service encodes it once more.
pub fn canonical_request(request: &Signable<'_>, service: &str) -> (String, String) {
    let path = if request.path.is_empty() { "/" } else { request.path };
    let path = if service == "s3" { path.to_owned() } else { uri_encode(path, true) };
    let mut query: Vec<(String, String)> =
        request.query.iter().map(|(k, v)| (uri_encode(k, false), uri_encode(v, false))).collect();
    query.sort();
    let query: Vec<String> = query.into_iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut headers: Vec<(String, String)> = request
        .headers
        .iter()
        .map(|(name, value)| (name.to_ascii_lowercase(), value.split_whitespace().collect::<Vec<_>>().join(" ")))
        .collect();
    headers.sort();
    let signed: Vec<&str> = headers.iter().map(|(name, _)| name.as_str()).collect();
    let signed = signed.join(";");
    let canonical_headers: String = headers.iter().map(|(name, value)| format!("{name}:{value}\n")).collect();
    let text = format!(
        "{}\n{path}\n{}\n{canonical_headers}\n{signed}\n{}",
        request.method,
        query.join("&"),
        request.payload_hash
    );
    (text, signed)
}

/// The `Authorization` header of `request` signed in `scope`.
pub fn authorization(request: &Signable<'_>, scope: &Scope<'_>) -> String {
    let (canonical, signed) = canonical_request(request, scope.service);
    let date = &scope.amz_date[..8.min(scope.amz_date.len())];
    let credential_scope = format!("{date}/{}/{}/aws4_request", scope.region, scope.service);
    let string_to_sign =
        format!("AWS4-HMAC-SHA256\n{}\n{credential_scope}\n{}", scope.amz_date, sha256_hex(canonical.as_bytes()));
    let key = hmac(format!("AWS4{}", scope.secret).as_bytes(), date);
    let key = hmac(&key, scope.region);
    let key = hmac(&key, scope.service);
    let key = hmac(&key, "aws4_request");
    let signature = hex(&hmac(&key, &string_to_sign));
    format!(
        "AWS4-HMAC-SHA256 Credential={}/{credential_scope}, SignedHeaders={signed}, Signature={signature}",
        scope.access_key_id
    )
}

/// `seconds` after 1970-01-01 UTC as `YYYYMMDDTHHMMSSZ`.
pub fn amz_date(seconds: u64) -> String {
    let date = qchess_core::calendar::CivilDate::from_unix_seconds(seconds as i64);
    let of_day = seconds % 86_400;
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        date.year,
        date.month,
        date.day,
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The credentials and moment of AWS's published SigV4 test suite.
    fn suite(amz_date: &'static str) -> Scope<'static> {
        Scope {
            access_key_id: "AKIDEXAMPLE",
            secret: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
            region: "us-east-1",
            service: "service",
            amz_date,
        }
    }

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    fn signature(authorization: &str) -> &str {
        authorization.rsplit_once("Signature=").map_or("", |(_, s)| s)
    }

    #[test]
    fn the_published_test_suite_signs_alike() {
        let basic = headers(&[("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")]);
        // Method, vector name, query, signature.
        type Case = (&'static str, &'static str, Vec<(String, String)>, &'static str);
        let cases: [Case; 3] = [
            ("GET", "get-vanilla", vec![], "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
            (
                "GET",
                "get-vanilla-query-order-key-case",
                vec![("Param2".into(), "value2".into()), ("Param1".into(), "value1".into())],
                "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500",
            ),
            ("POST", "post-vanilla", vec![], "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"),
        ];
        for (method, name, query, expected) in cases {
            let request = Signable { method, path: "/", query: &query, headers: &basic, payload_hash: EMPTY_SHA256 };
            let auth = authorization(&request, &suite("20150830T123600Z"));
            assert_eq!(signature(&auth), expected, "{name}");
            assert!(auth.starts_with(
                "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, "
            ));
        }
    }

    #[test]
    fn the_s3_documentation_example_signs_alike() {
        // "Example: GET Object" of Amazon S3's "Authenticating Requests" page.
        let headers = headers(&[
            ("Host", "examplebucket.s3.amazonaws.com"),
            ("Range", "bytes=0-9"),
            ("x-amz-content-sha256", EMPTY_SHA256),
            ("x-amz-date", "20130524T000000Z"),
        ]);
        let request =
            Signable { method: "GET", path: "/test.txt", query: &[], headers: &headers, payload_hash: EMPTY_SHA256 };
        let scope = Scope {
            access_key_id: "AKIAIOSFODNN7EXAMPLE",
            secret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            region: "us-east-1",
            service: "s3",
            amz_date: "20130524T000000Z",
        };
        assert_eq!(
            signature(&authorization(&request, &scope)),
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
        );
    }

    #[test]
    fn paths_are_encoded_again_except_for_s3_and_dates_print() {
        let request =
            Signable { method: "GET", path: "/device/arn%3Aaws", query: &[], headers: &[], payload_hash: "x" };
        assert!(canonical_request(&request, "braket").0.contains("\n/device/arn%253Aaws\n"));
        assert!(canonical_request(&request, "s3").0.contains("\n/device/arn%3Aaws\n"));
        assert_eq!(uri_encode("a b/c~", false), "a%20b%2Fc~");
        assert_eq!(amz_date(1_440_938_160), "20150830T123600Z");
    }
}
