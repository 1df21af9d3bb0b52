//! Rate limits of the game API, per server instance: changes of games (moves, computer moves,
//! offers, answers, resignations, seat claims) per seat and per address, and new games per
//! address. Each limit is a token bucket: a burst, then a steady rate. An IPv6 address counts
//! by its /64 (one machine's usual share). Over the limit the answer is 429 with `Retry-After`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

use qchess_core::setting::SettingError;

use crate::error::GamesError;

/// A steady rate with a burst; a rate of 0 is no limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Requests per second, once the burst is spent.
    pub per_second: f64,
    /// Requests at once.
    pub burst: f64,
}

impl Rate {
    /// `per_second` with a burst of `seconds` worth of it (at least 1).
    pub fn per_second(per_second: f64, seconds: f64) -> Rate {
        Rate { per_second, burst: (per_second * seconds).max(1.0) }
    }

    /// No limit.
    pub const UNLIMITED: Rate = Rate { per_second: 0.0, burst: 0.0 };
}

/// The game API's rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GameRates {
    /// Changes per seat (per game, for a game between computers).
    pub seat: Rate,
    /// Changes per address.
    pub address: Rate,
    /// New games per address.
    pub creation: Rate,
}

impl Default for GameRates {
    fn default() -> GameRates {
        GameRates {
            seat: Rate::per_second(5.0, 4.0),
            address: Rate::per_second(50.0, 4.0),
            creation: Rate { per_second: 1.0, burst: 60.0 },
        }
    }
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Buckets of one rate, by key.
#[derive(Debug)]
struct Limiter {
    rate: Rate,
    buckets: Mutex<HashMap<String, Bucket>>,
}

/// Buckets kept before full ones are forgotten.
const MAX_BUCKETS: usize = 100_000;

impl Limiter {
    fn new(rate: Rate) -> Limiter {
        Limiter { rate, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes one request for `key`; over the limit, the seconds until one is allowed.
    fn take(&self, key: &str) -> Result<(), f64> {
        if self.rate.per_second <= 0.0 {
            return Ok(());
        }
        let now = Instant::now();
        let mut buckets = self.buckets.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if buckets.len() >= MAX_BUCKETS {
            let (rate, burst) = (self.rate.per_second, self.rate.burst);
            buckets.retain(|_, b| b.tokens + now.duration_since(b.at).as_secs_f64() * rate < burst);
        }
        let bucket = buckets.entry(key.to_owned()).or_insert(Bucket { tokens: self.rate.burst, at: now });
        let refilled = now.duration_since(bucket.at).as_secs_f64() * self.rate.per_second;
        bucket.tokens = (bucket.tokens + refilled).min(self.rate.burst);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err((1.0 - bucket.tokens) / self.rate.per_second)
        }
    }
}

/// The game API's limiters.
#[derive(Debug)]
pub struct Limits {
    seat: Limiter,
    address: Limiter,
    creation: Limiter,
}

/// An address as it is counted: IPv6 by its /64.
fn address_key(address: Option<IpAddr>) -> String {
    match address {
        Some(IpAddr::V4(v4)) => v4.to_string(),
        Some(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let segments = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", segments[0], segments[1], segments[2], segments[3])
            }
        },
        None => "unknown".to_owned(),
    }
}

fn too_many(what: &str, wait: f64) -> GamesError {
    let seconds = wait.ceil().max(1.0) as u64;
    GamesError::TooMany { message: format!("too many {what}; try again in {seconds} s"), retry_after: seconds }
}

impl Limits {
    /// Limiters of `rates`.
    pub fn new(rates: GameRates) -> Limits {
        Limits {
            seat: Limiter::new(rates.seat),
            address: Limiter::new(rates.address),
            creation: Limiter::new(rates.creation),
        }
    }

    /// Counts a change by `seat` (a game and role) from `address`.
    pub fn change(&self, seat: &str, address: Option<IpAddr>) -> Result<(), GamesError> {
        self.address.take(&address_key(address)).map_err(|wait| too_many("changes from this address", wait))?;
        self.seat.take(seat).map_err(|wait| too_many("changes by this seat", wait))
    }

    /// Counts a new game from `address`.
    pub fn creation(&self, address: Option<IpAddr>) -> Result<(), GamesError> {
        self.creation.take(&address_key(address)).map_err(|wait| too_many("new games from this address", wait))
    }
}

/// Checks the rates' ranges.
pub fn validate(rates: &GameRates) -> Result<(), SettingError> {
    for (what, rate) in [
        ("--game-seat-rate", rates.seat),
        ("--game-address-rate", rates.address),
        ("--game-create-rate", rates.creation),
    ] {
        if !(rate.per_second.is_finite() && (0.0..=1e6).contains(&rate.per_second) && rate.burst.is_finite()) {
            return Err(SettingError::BadLimit {
                what,
                min: 0,
                max: 1_000_000,
                value: rate.per_second.max(0.0) as u64,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn buckets_allow_a_burst_then_the_rate() {
        let limiter = Limiter::new(Rate { per_second: 10.0, burst: 3.0 });
        for _ in 0..3 {
            limiter.take("a").expect("within the burst");
        }
        let wait = limiter.take("a").expect_err("the burst is spent");
        assert!(wait > 0.0 && wait <= 0.1, "{wait}");
        limiter.take("b").expect("another key has its own bucket");
        std::thread::sleep(Duration::from_millis(120));
        limiter.take("a").expect("refilled");
        assert!(Limiter::new(Rate::UNLIMITED).take("a").is_ok());
    }

    #[test]
    fn ipv6_addresses_count_by_their_64() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().expect("v6");
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().expect("v6");
        assert_eq!(address_key(Some(a)), address_key(Some(b)));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().expect("mapped");
        assert_eq!(address_key(Some(mapped)), "192.0.2.7");
        let limits =
            Limits::new(GameRates { creation: Rate { per_second: 0.001, burst: 1.0 }, ..GameRates::default() });
        limits.creation(Some(a)).expect("the first");
        let refused = limits.creation(Some(b)).expect_err("the same /64");
        assert!(matches!(refused, GamesError::TooMany { retry_after, .. } if retry_after >= 1), "{refused:?}");
    }
}
