//! `GET /api/v1/jobs`: the jobs kept, filtered and paged as `qiskit-ibm-runtime`'s
//! `service.jobs(...)` asks: `limit`, `offset`, `backend`, `pending`, `program`, `tags` (each
//! given once; a job must carry them all), `session_id`, `created_after`, `created_before`
//! (ISO 8601, inclusive) and `sort=ASC` (newest first otherwise). The answer is
//! `{"jobs": [...], "count": N}`, `count` the jobs that match before paging.

use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use axum::response::{IntoResponse, Response};
use qchess_core::calendar::parse_iso8601;
use serde_json::json;

use super::Admitted;
use super::error::IbmError;
use super::job_routes::job_json;
use super::jobs::Job;

/// The most jobs one page gives, and the page when no `limit` is asked.
pub const MAX_PAGE: usize = 200;

/// What a listing keeps and how it pages.
#[derive(Debug, Default, PartialEq)]
pub struct Filter {
    limit: Option<usize>,
    offset: usize,
    backend: Option<String>,
    pending: Option<bool>,
    program: Option<String>,
    tags: Vec<String>,
    session: Option<String>,
    created_after: Option<f64>,
    created_before: Option<f64>,
    ascending: bool,
}

impl Filter {
    /// The filter a query's `(name, value)` pairs ask for; unknown names are ignored, as the
    /// service ignores them (`exclude_params`, `include_mocks`).
    pub fn parse(pairs: &[(String, String)]) -> Result<Filter, String> {
        let mut filter = Filter::default();
        for (name, value) in pairs {
            let count = |value: &str| {
                value
                    .parse::<usize>()
                    .map_err(|_| format!("{name} must be a whole number, not `{}`", value.escape_debug()))
            };
            let time = |value: &str| {
                parse_iso8601(value)
                    .ok_or_else(|| format!("{name} must be an ISO 8601 time, not `{}`", value.escape_debug()))
            };
            match name.as_str() {
                "limit" => filter.limit = Some(count(value)?.min(MAX_PAGE)),
                "offset" => filter.offset = count(value)?,
                "backend" => filter.backend = Some(value.clone()),
                "pending" => {
                    filter.pending = Some(match value.as_str() {
                        "true" => true,
                        "false" => false,
                        _ => return Err(format!("pending must be `true` or `false`, not `{}`", value.escape_debug())),
                    })
                }
                "program" => filter.program = Some(value.clone()),
                "tags" => filter.tags.push(value.clone()),
                "session_id" => filter.session = Some(value.clone()),
                "created_after" => filter.created_after = Some(time(value)?),
                "created_before" => filter.created_before = Some(time(value)?),
                "sort" => {
                    filter.ascending = match value.as_str() {
                        "ASC" => true,
                        "DESC" => false,
                        _ => return Err(format!("sort must be `ASC` or `DESC`, not `{}`", value.escape_debug())),
                    }
                }
                _ => {}
            }
        }
        Ok(filter)
    }

    /// Whether `job` is one the filter keeps.
    fn keeps(&self, job: &Job) -> bool {
        self.backend.as_ref().is_none_or(|backend| &job.backend == backend)
            && self.pending.is_none_or(|pending| pending != job.status.is_final())
            && self.program.as_ref().is_none_or(|program| job.program == program)
            && self.tags.iter().all(|tag| job.tags.contains(tag))
            && self.session.as_ref().is_none_or(|session| job.session.as_ref() == Some(session))
            && self.created_after.is_none_or(|after| millis(job.created) >= millis(after))
            && self.created_before.is_none_or(|before| millis(job.created) <= millis(before))
    }

    /// The page of `jobs` the filter keeps, in its order, and how many it keeps in all.
    pub fn page<'a>(&self, jobs: impl Iterator<Item = (&'a String, &'a Job)>) -> (Vec<(&'a String, &'a Job)>, usize) {
        let mut kept: Vec<_> = jobs.filter(|(_, job)| self.keeps(job)).collect();
        kept.sort_by_key(|(_, job)| job.serial());
        if !self.ascending {
            kept.reverse();
        }
        let count = kept.len();
        let page = kept.into_iter().skip(self.offset).take(self.limit.unwrap_or(MAX_PAGE)).collect();
        (page, count)
    }
}

/// A time to the millisecond, as jobs show their times: a job's own `created` read back
/// matches it.
fn millis(seconds: f64) -> i64 {
    (seconds * 1000.0 + 1e-6).floor() as i64
}

/// `GET /api/v1/jobs`.
pub(super) async fn list(
    Admitted(tokens): Admitted,
    query: Result<Query<Vec<(String, String)>>, QueryRejection>,
) -> Result<Response, IbmError> {
    let Query(pairs) = query.map_err(|e| IbmError::BadQuery(e.body_text()))?;
    let filter = Filter::parse(&pairs).map_err(IbmError::BadQuery)?;
    let store = tokens.jobs.lock().unwrap_or_else(|p| p.into_inner());
    let (page, count) = filter.page(store.iter());
    let listed: Vec<_> = page.into_iter().map(|(id, job)| job_json(id, job)).collect();
    Ok(axum::Json(json!({ "jobs": listed, "count": count })).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(query: &[(&str, &str)]) -> Vec<(String, String)> {
        query.iter().map(|&(name, value)| (name.to_owned(), value.to_owned())).collect()
    }

    #[test]
    fn the_clients_query_reads_as_a_filter() {
        let query = pairs(&[
            ("exclude_params", "true"),
            ("limit", "5"),
            ("offset", "2"),
            ("backend", "ibm_fez"),
            ("pending", "false"),
            ("program", "sampler"),
            ("tags", "a"),
            ("tags", "b"),
            ("session_id", "s1"),
            ("created_after", "2026-11-29T11:00:00.500000+00:00"),
            ("created_before", "2026-11-29T12:00:00"),
            ("sort", "ASC"),
        ]);
        let filter = Filter::parse(&query).expect("reads");
        assert_eq!((filter.limit, filter.offset, filter.pending, filter.ascending), (Some(5), 2, Some(false), true));
        assert_eq!(
            (filter.tags.as_slice(), filter.session.as_deref()),
            (&["a".to_owned(), "b".to_owned()][..], Some("s1"))
        );
        assert_eq!(filter.created_after, Some(1_795_950_000.5));
        assert_eq!(filter.created_before, Some(1_795_953_600.0));
        assert_eq!(Filter::parse(&pairs(&[("limit", "999")])).expect("reads").limit, Some(MAX_PAGE));
        for (query, message) in [
            (("limit", "-1"), "limit must be a whole number, not `-1`"),
            (("pending", "yes"), "pending must be `true` or `false`, not `yes`"),
            (("created_after", "yesterday"), "created_after must be an ISO 8601 time, not `yesterday`"),
            (("sort", "up"), "sort must be `ASC` or `DESC`, not `up`"),
        ] {
            assert_eq!(Filter::parse(&pairs(&[query])), Err(message.to_owned()));
        }
    }
}
