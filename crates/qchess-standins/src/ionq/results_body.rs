//! A job's results as a JSON object written in small chunks while the client reads them, so a
//! download costs one chunk of memory however many outcomes the job has (a 20-qubit result is
//! about 30 MB of JSON).

use std::convert::Infallible;
use std::io::Write as _;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Bytes;
use http_body::{Body, Frame, SizeHint};

/// Bytes of JSON written per chunk (a chunk may end a little past it).
const CHUNK_BYTES: usize = 64 * 1024;

/// `{"outcome": probability, ...}` of stored results, produced chunk by chunk.
#[derive(Debug)]
pub struct ResultsBody {
    results: Arc<Vec<(u64, f64)>>,
    /// The next outcome to write; `None` once the closing brace was written.
    next: Option<usize>,
}

impl ResultsBody {
    /// The body of these results.
    pub fn new(results: Arc<Vec<(u64, f64)>>) -> ResultsBody {
        ResultsBody { results, next: Some(0) }
    }

    /// The next chunk, or `None` when everything was written.
    fn next_chunk(&mut self) -> Option<Bytes> {
        let start = self.next?;
        let mut chunk = Vec::with_capacity(CHUNK_BYTES + 64);
        if start == 0 {
            chunk.push(b'{');
        }
        let mut index = start;
        while index < self.results.len() && chunk.len() < CHUNK_BYTES {
            let (outcome, probability) = self.results[index];
            if index > 0 {
                chunk.push(b',');
            }
            // Writing to a Vec cannot fail; a non-finite probability is written as null, as
            // serde_json writes it.
            let _ = write!(chunk, "\"{outcome}\":");
            let _ = serde_json::to_writer(&mut chunk, &probability);
            index += 1;
        }
        if index == self.results.len() {
            chunk.push(b'}');
            self.next = None;
        } else {
            self.next = Some(index);
        }
        Some(Bytes::from(chunk))
    }
}

impl Body for ResultsBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Poll::Ready(self.next_chunk().map(|chunk| Ok(Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        self.next.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(body: &mut ResultsBody) -> (Vec<u8>, usize) {
        let mut all = Vec::new();
        let mut chunks = 0;
        while let Some(chunk) = body.next_chunk() {
            assert!(chunk.len() <= CHUNK_BYTES + 64, "chunks stay small");
            all.extend_from_slice(&chunk);
            chunks += 1;
        }
        (all, chunks)
    }

    #[test]
    fn chunks_join_into_the_same_json_as_a_whole_map() {
        for results in [vec![], vec![(5, 1.0)], (0..50_000u64).map(|k| (k * 3, 1.0 / 50_000.0)).collect()] {
            let expected: serde_json::Map<String, serde_json::Value> =
                results.iter().map(|&(k, p)| (k.to_string(), serde_json::Value::from(p))).collect();
            let mut body = ResultsBody::new(Arc::new(results.clone()));
            let (bytes, chunks) = collect(&mut body);
            let parsed: serde_json::Value = serde_json::from_slice(&bytes).expect("valid JSON");
            assert_eq!(parsed, serde_json::Value::Object(expected));
            assert!(body.is_end_stream());
            assert!(chunks >= bytes.len() / (CHUNK_BYTES + 64), "{chunks} chunks of {} bytes", bytes.len());
            assert!(results.len() < 10_000 || chunks > 10, "large results come in many chunks");
        }
    }
}
