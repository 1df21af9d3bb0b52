//! Where AWS users keep their credentials and region, read in the order the AWS SDKs and CLI
//! read them:
//!
//! 1. the environment: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`;
//! 2. the profile `AWS_PROFILE` (else `AWS_DEFAULT_PROFILE`, else `default`) in the shared
//!    credentials file (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`), then in the
//!    config file (`AWS_CONFIG_FILE`, else `~/.aws/config`, where it is `[profile NAME]`): its
//!    `aws_access_key_id`, `aws_secret_access_key` and `aws_session_token`, or its
//!    `credential_process`, a command that prints `{"Version": 1, "AccessKeyId",
//!    "SecretAccessKey", "SessionToken", "Expiration"}` (which is how `aws configure
//!    export-credentials` hands SSO and role credentials to other programs).
//!
//! The region is `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the profile's `region` in the
//! config file. A profile that only names a role or an SSO session is refused with what to do;
//! when nothing is found, the error lists every place that was looked at.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why no usable credentials were found.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CredentialsError {
    /// Nothing anywhere.
    #[error("no AWS credentials: looked in {}", .looked.join(", "))]
    NotFound {
        /// Every place looked at.
        looked: Vec<String>,
    },
    /// `AWS_PROFILE` names a profile neither file has.
    #[error("AWS profile `{profile}` is in neither {}", .files.join(" nor "))]
    NoSuchProfile {
        /// The profile.
        profile: String,
        /// The files looked at.
        files: Vec<String>,
    },
    /// Half a key pair.
    #[error("{found} is set but {missing} is not ({place})")]
    Incomplete {
        /// What was found.
        found: &'static str,
        /// What is missing.
        missing: &'static str,
        /// Where.
        place: String,
    },
    /// A profile whose credentials come from a role or an SSO session, which qchess does not
    /// fetch itself.
    #[error(
        "AWS profile `{profile}` gets its credentials from {what}, which qchess does not fetch itself: add \
         `credential_process = aws configure export-credentials --profile {profile} --format process` to it, \
         or export the keys"
    )]
    Unsupported {
        /// The profile.
        profile: String,
        /// `role_arn`, `sso_session`, ...
        what: String,
    },
    /// The credential process failed or printed something else.
    #[error("the credential_process of AWS profile `{profile}` failed: {detail}")]
    Process {
        /// The profile.
        profile: String,
        /// What went wrong.
        detail: String,
    },
    /// The credentials say when they expire, and that moment has passed.
    #[error("the AWS credentials from {source_name} expired at {expiration}")]
    Expired {
        /// Where they came from.
        source_name: String,
        /// When, as written.
        expiration: String,
    },
}

/// A key pair (and session token), with where it came from. `Debug` never shows the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct AwsCredentials {
    /// The access key id.
    pub access_key_id: String,
    secret: String,
    /// The session token of temporary credentials.
    pub session_token: Option<String>,
    /// Where they were found, for error messages.
    pub source: String,
}

impl AwsCredentials {
    /// Credentials from their parts.
    pub fn new(access_key_id: &str, secret: &str, session_token: Option<&str>, source: &str) -> AwsCredentials {
        AwsCredentials {
            access_key_id: access_key_id.trim().to_owned(),
            secret: secret.trim().to_owned(),
            session_token: session_token.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()),
            source: source.to_owned(),
        }
    }

    /// The secret access key.
    pub fn secret(&self) -> &str {
        &self.secret
    }
}

impl fmt::Debug for AwsCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AwsCredentials")
            .field("access_key_id", &self.access_key_id)
            .field("secret", &"<redacted>")
            .field("session_token", &self.session_token.as_ref().map(|_| "<redacted>"))
            .field("source", &self.source)
            .finish()
    }
}

/// What the chain reads: environment variables and the home directory (a map in tests).
#[derive(Debug, Clone, Default)]
pub struct Environment {
    vars: BTreeMap<String, String>,
}

impl Environment {
    /// This process's environment.
    pub fn current() -> Environment {
        let vars = std::env::vars().filter(|(name, _)| name.starts_with("AWS_") || name == "HOME").collect();
        Environment { vars }
    }

    /// An environment of these variables only.
    pub fn of(vars: &[(&str, &str)]) -> Environment {
        Environment { vars: vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect() }
    }

    /// A variable, when set and not empty.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str).map(str::trim).filter(|v| !v.is_empty())
    }

    /// The profile to read: `AWS_PROFILE`, else `AWS_DEFAULT_PROFILE`, else `default`; and
    /// whether it was named.
    pub fn profile(&self) -> (String, bool) {
        match self.var("AWS_PROFILE").or_else(|| self.var("AWS_DEFAULT_PROFILE")) {
            Some(profile) => (profile.to_owned(), true),
            None => ("default".to_owned(), false),
        }
    }

    fn file(&self, variable: &str, name: &str) -> Option<PathBuf> {
        match self.var(variable) {
            Some(path) => Some(PathBuf::from(path)),
            None => self.var("HOME").map(|home| Path::new(home).join(".aws").join(name)),
        }
    }

    /// The shared credentials file.
    pub fn credentials_file(&self) -> Option<PathBuf> {
        self.file("AWS_SHARED_CREDENTIALS_FILE", "credentials")
    }

    /// The config file.
    pub fn config_file(&self) -> Option<PathBuf> {
        self.file("AWS_CONFIG_FILE", "config")
    }

    /// The region and where it was found: see the [module docs](self).
    pub fn region(&self) -> Option<(String, String)> {
        for name in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
            if let Some(region) = self.var(name) {
                return Some((region.to_owned(), name.to_owned()));
            }
        }
        let (profile, _) = self.profile();
        let path = self.config_file()?;
        let region = config_section(&read_ini(&path)?, &profile)?.get("region")?.clone();
        Some((region, format!("profile `{profile}` in {}", path.display())))
    }

    /// The credentials: see the [module docs](self). `now` (seconds since 1970) decides whether
    /// credentials that say when they expire have.
    pub fn credentials(&self, now: u64) -> Result<AwsCredentials, CredentialsError> {
        let mut looked = vec!["the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)".to_owned()];
        match (self.var("AWS_ACCESS_KEY_ID"), self.var("AWS_SECRET_ACCESS_KEY")) {
            (Some(id), Some(secret)) => {
                return Ok(AwsCredentials::new(id, secret, self.var("AWS_SESSION_TOKEN"), "the environment"));
            }
            (Some(_), None) => return Err(incomplete("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "the environment")),
            (None, Some(_)) => return Err(incomplete("AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "the environment")),
            (None, None) => {}
        }
        let (profile, named) = self.profile();
        let mut files = Vec::new();
        let mut seen = false;
        if let Some(path) = self.credentials_file() {
            files.push(path.display().to_string());
            looked.push(format!("profile `{profile}` in {}", path.display()));
            if let Some(section) = read_ini(&path).as_ref().and_then(|ini| ini.get(&profile)) {
                seen = true;
                if let Some(found) = keys(section, &format!("profile `{profile}` in {}", path.display()))? {
                    return Ok(found);
                }
            }
        }
        if let Some(path) = self.config_file() {
            files.push(path.display().to_string());
            looked.push(format!("profile `{profile}` in {}", path.display()));
            if let Some(section) = read_ini(&path).as_ref().and_then(|ini| config_section(ini, &profile)) {
                seen = true;
                let place = format!("profile `{profile}` in {}", path.display());
                if let Some(found) = keys(section, &place)? {
                    return Ok(found);
                }
                if let Some(command) = section.get("credential_process") {
                    return run_process(&profile, command, now);
                }
                if let Some(what) = ["role_arn", "sso_session", "sso_start_url", "web_identity_token_file"]
                    .into_iter()
                    .find(|key| section.contains_key(*key))
                {
                    return Err(CredentialsError::Unsupported { profile, what: what.to_owned() });
                }
            }
        }
        if named && !seen {
            return Err(CredentialsError::NoSuchProfile { profile, files });
        }
        Err(CredentialsError::NotFound { looked })
    }
}

fn incomplete(found: &'static str, missing: &'static str, place: &str) -> CredentialsError {
    CredentialsError::Incomplete { found, missing, place: place.to_owned() }
}

/// The key pair of a profile section, if it has one.
fn keys(section: &BTreeMap<String, String>, place: &str) -> Result<Option<AwsCredentials>, CredentialsError> {
    match (section.get("aws_access_key_id"), section.get("aws_secret_access_key")) {
        (Some(id), Some(secret)) => {
            Ok(Some(AwsCredentials::new(id, secret, section.get("aws_session_token").map(String::as_str), place)))
        }
        (Some(_), None) => Err(incomplete("aws_access_key_id", "aws_secret_access_key", place)),
        (None, Some(_)) => Err(incomplete("aws_secret_access_key", "aws_access_key_id", place)),
        (None, None) => Ok(None),
    }
}

/// A profile's section of the config file: `[profile NAME]`, or `[default]` for `default`.
fn config_section<'a>(
    ini: &'a BTreeMap<String, BTreeMap<String, String>>,
    profile: &str,
) -> Option<&'a BTreeMap<String, String>> {
    ini.get(&format!("profile {profile}")).or_else(|| (profile == "default").then(|| ini.get("default")).flatten())
}

/// The sections of an INI file (`None` when it cannot be read). Indented lines (nested
/// settings of the config file) and comments are skipped.
pub fn read_ini(path: &Path) -> Option<BTreeMap<String, BTreeMap<String, String>>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(parse_ini(&text))
}

/// The sections of INI text: see [`read_ini`].
pub fn parse_ini(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut sections: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let line = line.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
            sections.entry(name.clone()).or_default();
            current = Some(name);
        } else if let (Some(section), Some((key, value))) = (&current, line.split_once('=')) {
            sections.entry(section.clone()).or_default().insert(key.trim().to_owned(), value.trim().to_owned());
        }
    }
    sections
}

/// Runs a profile's `credential_process` and reads what it prints.
fn run_process(profile: &str, command: &str, now: u64) -> Result<AwsCredentials, CredentialsError> {
    let failed = |detail: String| CredentialsError::Process { profile: profile.to_owned(), detail };
    let output = std::process::Command::new("sh")
        .args(["-c", command])
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| failed(format!("cannot run `{command}`: {e}")))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(failed(format!("`{command}` exited with {}: {}", output.status, stderr.trim())));
    }
    let value: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| failed(format!("it printed no JSON: {e}")))?;
    let text = |key: &str| value.get(key).and_then(serde_json::Value::as_str);
    if value.get("Version").and_then(serde_json::Value::as_u64) != Some(1) {
        return Err(failed("it printed no `\"Version\": 1`".to_owned()));
    }
    let (Some(id), Some(secret)) = (text("AccessKeyId"), text("SecretAccessKey")) else {
        return Err(failed("it printed no AccessKeyId and SecretAccessKey".to_owned()));
    };
    let source = format!("the credential_process of AWS profile `{profile}`");
    if let Some(expiration) = text("Expiration") {
        let at = parse_timestamp(expiration)
            .ok_or_else(|| failed(format!("its Expiration `{expiration}` is not a time")))?;
        if at <= now {
            return Err(CredentialsError::Expired { source_name: source, expiration: expiration.to_owned() });
        }
    }
    Ok(AwsCredentials::new(id, secret, text("SessionToken"), &source))
}

/// Seconds since 1970 of an ISO 8601 UTC time, `YYYY-MM-DDTHH:MM:SS[.fff](Z|+00:00)`.
pub fn parse_timestamp(text: &str) -> Option<u64> {
    let text = text.trim();
    let (date, time) = text.split_once(['T', ' '])?;
    let mut parts = date.splitn(3, '-').map(str::parse::<i64>);
    let (year, month, day) = (parts.next()?.ok()?, parts.next()?.ok()?, parts.next()?.ok()?);
    let time = time.trim_end_matches('Z').trim_end_matches("+00:00");
    let mut clock = time.splitn(3, ':');
    let hour: u64 = clock.next()?.parse().ok()?;
    let minute: u64 = clock.next()?.parse().ok()?;
    let second: f64 = clock.next()?.parse().ok()?;
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || !(0.0..61.0).contains(&second)
    {
        return None;
    }
    // Howard Hinnant's days-from-civil.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days).ok().map(|d| d * 86_400 + hour * 3600 + minute * 60 + second as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn home_with(credentials: &str, config: &str) -> tempfile::TempDir {
        let home = tempfile::tempdir().expect("a temporary home");
        std::fs::create_dir_all(home.path().join(".aws")).expect(".aws");
        std::fs::write(home.path().join(".aws/credentials"), credentials).expect("credentials");
        std::fs::write(home.path().join(".aws/config"), config).expect("config");
        home
    }

    #[test]
    fn the_chain_reads_the_environment_then_the_credentials_then_the_config_file() {
        let home = home_with(
            "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = s1\n\n[work]\naws_access_key_id=AKIDWORK\naws_secret_access_key=s2\naws_session_token=t2\n",
            "[default]\nregion = eu-north-1\n[profile work]\nregion = us-west-1\n[profile process]\ncredential_process = printf '{\"Version\": 1, \"AccessKeyId\": \"AKIDPROC\", \"SecretAccessKey\": \"s3\", \"Expiration\": \"2999-01-01T00:00:00Z\"}'\n[profile old]\ncredential_process = printf '{\"Version\": 1, \"AccessKeyId\": \"A\", \"SecretAccessKey\": \"s\", \"Expiration\": \"2020-01-01T00:00:00Z\"}'\n[profile sso]\nsso_session = corp\n",
        );
        let home = home.path().to_str().expect("utf-8");
        let now = 1_800_000_000;
        let env = Environment::of(&[("HOME", home), ("AWS_ACCESS_KEY_ID", "AKIDENV"), ("AWS_SECRET_ACCESS_KEY", "s0")]);
        assert_eq!(env.credentials(now).expect("found").access_key_id, "AKIDENV");
        let default = Environment::of(&[("HOME", home)]);
        let found = default.credentials(now).expect("found");
        assert_eq!((found.access_key_id.as_str(), found.secret()), ("AKIDDEFAULT", "s1"));
        assert!(found.source.contains("profile `default`") && found.source.ends_with(".aws/credentials"));
        assert_eq!(default.region().map(|r| r.0).as_deref(), Some("eu-north-1"));
        let work = Environment::of(&[("HOME", home), ("AWS_PROFILE", "work"), ("AWS_REGION", "us-east-1")]);
        let found = work.credentials(now).expect("found");
        assert_eq!((found.access_key_id.as_str(), found.session_token.as_deref()), ("AKIDWORK", Some("t2")));
        assert_eq!(work.region().map(|r| r.0).as_deref(), Some("us-east-1"), "the environment's region wins");
        let process = Environment::of(&[("HOME", home), ("AWS_PROFILE", "process")]);
        assert_eq!(process.credentials(now).expect("found").access_key_id, "AKIDPROC");
        let expired = Environment::of(&[("HOME", home), ("AWS_PROFILE", "old")]).credentials(now).expect_err("expired");
        assert!(expired.to_string().contains("expired at 2020-01-01T00:00:00Z"), "{expired}");
        let sso = Environment::of(&[("HOME", home), ("AWS_PROFILE", "sso")]).credentials(now).expect_err("sso");
        assert!(sso.to_string().contains("sso_session") && sso.to_string().contains("export-credentials"), "{sso}");
        let missing = Environment::of(&[("HOME", home), ("AWS_PROFILE", "nope")]).credentials(now).expect_err("none");
        assert!(matches!(missing, CredentialsError::NoSuchProfile { .. }), "{missing}");
        let half = Environment::of(&[("AWS_ACCESS_KEY_ID", "A")]).credentials(now).expect_err("half");
        assert!(half.to_string().contains("AWS_SECRET_ACCESS_KEY is not"), "{half}");
    }

    #[test]
    fn nothing_found_names_every_place_looked_at_and_secrets_never_print() {
        let empty = tempfile::tempdir().expect("a temporary home");
        let home = empty.path().to_str().expect("utf-8");
        let error = Environment::of(&[("HOME", home)]).credentials(0).expect_err("nothing").to_string();
        assert!(
            error.contains("AWS_ACCESS_KEY_ID") && error.contains(".aws/credentials") && error.contains(".aws/config"),
            "{error}"
        );
        let credentials = AwsCredentials::new("AKID", "very-secret", Some("token"), "here");
        assert!(!format!("{credentials:?}").contains("very-secret") && !format!("{credentials:?}").contains("token\""));
        assert_eq!(parse_timestamp("2015-08-30T12:36:00Z"), Some(1_440_938_160));
        assert_eq!(parse_timestamp("2015-08-30T12:36:00.123+00:00"), Some(1_440_938_160));
        assert_eq!(parse_timestamp("yesterday"), None);
    }
}
