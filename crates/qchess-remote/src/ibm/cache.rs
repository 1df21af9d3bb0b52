//! Device descriptions and their disk cache: configurations and properties fetched or read back,
//! atomic writes, and when cached properties (a calibration) may still be used.

use std::path::PathBuf;
use std::time::Duration;

use qchess_core::calendar::CivilDate;
use reqwest::Method;
use serde_json::Value;

use super::{CONFIGURATION_TTL, IbmClient, PROPERTIES_RECHECK, PROPERTIES_TTL, path_segment};
use crate::error::RemoteError;
use crate::retry::Deadline;

impl IbmClient {
    /// The device's configuration (`backend_name`, `n_qubits`, `basis_gates`, `coupling_map`,
    /// ...), from the cache when it is fresh, else from the API (and then cached).
    pub async fn configuration(&self) -> Result<Value, RemoteError> {
        self.configuration_before(self.deadline()).await
    }

    /// [`IbmClient::configuration`] within `deadline`.
    pub async fn configuration_before(&self, deadline: Deadline) -> Result<Value, RemoteError> {
        let cached = self.cache_path().and_then(|path| {
            let age = std::fs::metadata(&path).ok()?.modified().ok()?.elapsed().ok()?;
            let text = (age < CONFIGURATION_TTL).then(|| std::fs::read(&path).ok()).flatten()?;
            serde_json::from_slice::<Value>(&text).ok()
        });
        if let Some(configuration) = cached {
            return Ok(configuration);
        }
        let device = &self.config.device;
        let what = format!("the configuration of {device}");
        let path = format!("backends/{}/configuration", path_segment(device));
        let configuration = self.call(&what, Method::GET, &path, None, deadline).await?;
        if let Some(path) = self.cache_path() {
            // A cache that cannot be written only costs a fetch next time.
            let _ = write_cache(&path, &configuration);
        }
        Ok(configuration)
    }

    fn cache_path(&self) -> Option<PathBuf> {
        self.cache_file("configuration")
    }

    fn cache_file(&self, what: &str) -> Option<PathBuf> {
        let dir = self.config.cache_dir.as_ref()?;
        Some(dir.join(format!("{}.{what}.json", path_segment(&self.config.device))))
    }

    /// The device's properties (its calibration: `last_update_date`, per-qubit and per-gate
    /// error rates and `operational` flags), from the cache when it is fresh (see the
    /// [module docs](crate::ibm)), else from the API (and then cached with the time it was fetched).
    pub async fn properties(&self) -> Result<Value, RemoteError> {
        self.properties_before(self.deadline()).await
    }

    /// [`IbmClient::properties`] within `deadline`.
    pub async fn properties_before(&self, deadline: Deadline) -> Result<Value, RemoteError> {
        let now = unix_now();
        let cached = self.cache_file("properties").and_then(|path| {
            let entry: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
            let fetched_at = entry.get("fetched_at")?.as_u64()?;
            let properties = entry.get("properties")?;
            let calibrated_at = properties.get("last_update_date").and_then(Value::as_str).and_then(unix_seconds);
            properties_fresh(fetched_at, calibrated_at, now).then(|| properties.clone())
        });
        if let Some(properties) = cached {
            return Ok(properties);
        }
        let device = &self.config.device;
        let what = format!("the properties of {device}");
        let path = format!("backends/{}/properties", path_segment(device));
        let properties = self.call(&what, Method::GET, &path, None, deadline).await?;
        if let Some(path) = self.cache_file("properties") {
            // A cache that cannot be written only costs a fetch next time.
            let _ = write_cache(&path, &serde_json::json!({ "fetched_at": now, "properties": properties }));
        }
        Ok(properties)
    }
}

/// How often IBM calibrates a device.
const CALIBRATION_PERIOD: Duration = Duration::from_secs(24 * 3600);

/// Seconds since the Unix epoch, now.
pub(super) fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Whether properties fetched at `fetched_at`, of a calibration made at `calibrated_at` (Unix
/// seconds), may still be used at `now`: at most [`PROPERTIES_TTL`] after fetching, and
/// [`PROPERTIES_RECHECK`] once the calibration is a day old.
pub(super) fn properties_fresh(fetched_at: u64, calibrated_at: Option<u64>, now: u64) -> bool {
    let age = now.saturating_sub(fetched_at);
    if fetched_at > now || age >= PROPERTIES_TTL.as_secs() {
        return false;
    }
    let due = calibrated_at.is_none_or(|at| now.saturating_sub(at) >= CALIBRATION_PERIOD.as_secs());
    !due || age < PROPERTIES_RECHECK.as_secs()
}

/// An RFC 3339 date and time (`2025-02-26T15:26:08-05:00`, `...Z`, fractions of a second
/// ignored) as Unix seconds; `None` if it is not one.
pub fn unix_seconds(text: &str) -> Option<u64> {
    let number = |range: std::ops::Range<usize>| text.get(range)?.parse::<i64>().ok();
    let bytes = text.as_bytes();
    if bytes.len() < 20 || bytes[4] != b'-' || bytes[7] != b'-' || !matches!(bytes[10], b'T' | b't' | b' ') {
        return None;
    }
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = &text[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        rest = fraction.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let offset = match rest {
        "Z" | "z" => 0,
        zone if zone.len() == 6 && (zone.starts_with('+') || zone.starts_with('-')) && &zone[3..4] == ":" => {
            let (h, m) = (zone[1..3].parse::<i64>().ok()?, zone[4..6].parse::<i64>().ok()?);
            let minutes = h * 60 + m;
            if zone.starts_with('-') { -minutes * 60 } else { minutes * 60 }
        }
        _ => return None,
    };
    // In range, as checked above.
    let days = CivilDate { year, month: month as u32, day: day as u32 }.days_since_epoch();
    u64::try_from(days * 86_400 + hour * 3600 + minute * 60 + second - offset).ok()
}

/// Writes the cache atomically: a temporary file in the same directory, then a rename.
pub(super) fn write_cache(path: &std::path::Path, configuration: &Value) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    std::fs::create_dir_all(dir)?;
    let temporary = dir.join(format!(".{}.{:016x}.tmp", std::process::id(), rand::random::<u64>()));
    std::fs::write(&temporary, serde_json::to_vec(configuration).unwrap_or_default())?;
    std::fs::rename(&temporary, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_as_unix_seconds() {
        assert_eq!(unix_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(unix_seconds("2025-02-26T15:26:08-05:00"), Some(1_740_601_568));
        assert_eq!(unix_seconds("2025-02-26T20:26:08.123+00:00"), Some(1_740_601_568));
        assert_eq!(unix_seconds("2000-03-01T00:00:00Z"), Some(951_868_800));
        for bad in ["", "2025-02-26", "2025-13-01T00:00:00Z", "2025-02-26T15:26:08", "2025-02-26T15:26:08+5"] {
            assert_eq!(unix_seconds(bad), None, "{bad}");
        }
    }

    #[test]
    fn properties_are_fresh_for_hours_and_rechecked_once_a_day_old() {
        let hour = 3600;
        let now = 1_000 * 24 * hour;
        // A calibration of this morning: reused up to three hours after fetching.
        assert!(properties_fresh(now - 2 * hour, Some(now - 5 * hour), now));
        assert!(!properties_fresh(now - 3 * hour, Some(now - 5 * hour), now));
        // A calibration a day old: a newer one is due, so the cache is checked every ten minutes.
        assert!(properties_fresh(now - 5 * 60, Some(now - 25 * hour), now));
        assert!(!properties_fresh(now - 11 * 60, Some(now - 25 * hour), now));
        // No readable date counts as due; a fetch time in the future is not trusted.
        assert!(!properties_fresh(now - 11 * 60, None, now));
        assert!(!properties_fresh(now + 60, Some(now), now));
    }
}
