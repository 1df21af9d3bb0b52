//! The results bucket, path-style as S3 answers it (`GetObject`, `ListObjectsV2`,
//! `DeleteObject`, `CreateBucket`), and STS's `GetCallerIdentity`. Tasks write their
//! `results.json` into the bucket they name, which then exists.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::error::xml_escape;
use super::sign::query_pairs;
use super::{ACCOUNT, Head, Shared, XmlError};

/// Buckets by name, each its objects by key.
pub type Buckets = HashMap<String, BTreeMap<String, Vec<u8>>>;

/// Stores an object (a task's results).
pub fn put(shared: &Shared, bucket: &str, key: &str, data: Vec<u8>) {
    let mut buckets = shared.buckets.lock().unwrap_or_else(|p| p.into_inner());
    buckets.entry(bucket.to_owned()).or_default().insert(key.to_owned(), data);
}

fn xml(body: String) -> Response {
    (
        StatusCode::OK,
        [("content-type", "application/xml")],
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{body}"),
    )
        .into_response()
}

/// `GetObject`.
pub async fn get_object(
    State(shared): State<Arc<Shared>>,
    Path((bucket, key)): Path<(String, String)>,
    head: Head,
) -> Result<Response, XmlError> {
    shared.verify("s3", &head, b"")?;
    let buckets = shared.buckets.lock().unwrap_or_else(|p| p.into_inner());
    let objects = buckets.get(&bucket).ok_or_else(|| XmlError::NoSuchBucket(bucket.clone()))?;
    let data = objects.get(&key).ok_or_else(|| XmlError::NoSuchKey(format!("{bucket}/{key}")))?;
    Ok((StatusCode::OK, [("content-type", "application/json")], data.clone()).into_response())
}

/// `DeleteObject` (204 whether or not the key was there, as S3 answers).
pub async fn delete_object(
    State(shared): State<Arc<Shared>>,
    Path((bucket, key)): Path<(String, String)>,
    head: Head,
) -> Result<Response, XmlError> {
    shared.verify("s3", &head, b"")?;
    let mut buckets = shared.buckets.lock().unwrap_or_else(|p| p.into_inner());
    let objects = buckets.get_mut(&bucket).ok_or_else(|| XmlError::NoSuchBucket(bucket.clone()))?;
    objects.remove(&key);
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `CreateBucket` (an existing bucket of the caller's is kept, as in `us-east-1`).
pub async fn create_bucket(
    State(shared): State<Arc<Shared>>,
    Path(bucket): Path<String>,
    head: Head,
    body: Bytes,
) -> Result<Response, XmlError> {
    shared.verify("s3", &head, &body)?;
    shared.buckets.lock().unwrap_or_else(|p| p.into_inner()).entry(bucket.clone()).or_default();
    Ok((StatusCode::OK, [("location", format!("/{bucket}"))]).into_response())
}

/// `ListObjectsV2` (`list-type=2`, `prefix`, `max-keys`, `continuation-token`).
pub async fn list_objects(
    State(shared): State<Arc<Shared>>,
    Path(bucket): Path<String>,
    head: Head,
) -> Result<Response, XmlError> {
    shared.verify("s3", &head, b"")?;
    let query: HashMap<String, String> = query_pairs(head.uri.query().unwrap_or("")).into_iter().collect();
    if query.get("list-type").map(String::as_str) != Some("2") {
        return Err(XmlError::Invalid("only ListObjectsV2 (list-type=2) is answered on a bucket".into()));
    }
    let prefix = query.get("prefix").cloned().unwrap_or_default();
    let max_keys: usize = query.get("max-keys").and_then(|m| m.parse().ok()).unwrap_or(1000).min(1000);
    let after = query.get("continuation-token").or(query.get("start-after")).cloned().unwrap_or_default();
    let buckets = shared.buckets.lock().unwrap_or_else(|p| p.into_inner());
    let objects = buckets.get(&bucket).ok_or_else(|| XmlError::NoSuchBucket(bucket.clone()))?;
    let matching: Vec<(&String, &Vec<u8>)> =
        objects.iter().filter(|(key, _)| key.starts_with(&prefix) && key.as_str() > after.as_str()).collect();
    let page = &matching[..matching.len().min(max_keys)];
    let truncated = matching.len() > page.len();
    let mut body = format!(
        "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Name>{}</Name><Prefix>{}</Prefix><KeyCount>{}</KeyCount><MaxKeys>{max_keys}</MaxKeys><IsTruncated>{truncated}</IsTruncated>",
        xml_escape(&bucket),
        xml_escape(&prefix),
        page.len()
    );
    for (key, data) in page {
        body.push_str(&format!(
            "<Contents><Key>{}</Key><Size>{}</Size><StorageClass>STANDARD</StorageClass></Contents>",
            xml_escape(key),
            data.len()
        ));
    }
    if let (true, Some((last, _))) = (truncated, page.last()) {
        body.push_str(&format!("<NextContinuationToken>{}</NextContinuationToken>", xml_escape(last)));
    }
    body.push_str("</ListBucketResult>");
    Ok(xml(body))
}

/// STS `GetCallerIdentity` (the account of the default bucket's name).
pub async fn caller_identity(State(shared): State<Arc<Shared>>, head: Head, body: Bytes) -> Result<Response, XmlError> {
    shared.verify("sts", &head, &body)?;
    let form = String::from_utf8_lossy(&body);
    if !form.split('&').any(|pair| pair == "Action=GetCallerIdentity") {
        return Err(XmlError::Invalid("only Action=GetCallerIdentity is answered".into()));
    }
    let key = xml_escape(shared.options.keys.as_ref().map_or("", |k| k.access_key_id.as_str()));
    Ok(xml(format!(
        "<GetCallerIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><GetCallerIdentityResult><Arn>arn:aws:iam::{ACCOUNT}:user/qchess</Arn><UserId>{key}</UserId><Account>{ACCOUNT}</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>00000000-0000-0000-0000-000000000000</RequestId></ResponseMetadata></GetCallerIdentityResponse>"
    )))
}
