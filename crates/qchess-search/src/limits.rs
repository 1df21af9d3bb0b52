//! When a search stops: depth, nodes, a fixed time per move, or a share of a clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The deepest iteration the search ever starts.
pub const MAX_DEPTH: u32 = 64;

/// Time kept back from every budget for answering and process overhead.
const SAFETY_MARGIN: Duration = Duration::from_millis(15);

/// Moves the rest of the game is assumed to last when the clock says nothing else.
const ASSUMED_MOVES_TO_GO: u32 = 30;

/// A side's clock: the time left, the increment per move, and the moves to the next control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the clock.
    pub remaining: Duration,
    /// Time added after each move.
    pub increment: Duration,
    /// Moves until the next time control, when known.
    pub moves_to_go: Option<u32>,
}

impl Clock {
    /// The time to spend on this move: an even share of what is left plus most of the
    /// increment, never more than half of what is left (less the safety margin).
    pub fn budget(&self) -> Duration {
        let moves = self.moves_to_go.unwrap_or(ASSUMED_MOVES_TO_GO).max(1);
        let share = self.remaining / moves + self.increment * 3 / 4;
        let ceiling = (self.remaining / 2).saturating_sub(SAFETY_MARGIN);
        share.min(ceiling).max(Duration::from_millis(1))
    }
}

/// What bounds one search. With nothing set it runs to [`MAX_DEPTH`] or until stopped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchLimits {
    /// The deepest iteration to run.
    pub depth: Option<u32>,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Answer within this time.
    pub movetime: Option<Duration>,
    /// The clock of the side to move.
    pub clock: Option<Clock>,
    /// Search until stopped (depth, node and time limits still apply if set).
    pub infinite: bool,
    /// Search every root move with the whole window, so that each gets its exact value
    /// ([`SearchInfo::root_values`](crate::SearchInfo::root_values)): slower, for analysis.
    pub every_root_value: bool,
}

impl SearchLimits {
    /// Only a depth.
    pub fn depth(depth: u32) -> SearchLimits {
        SearchLimits { depth: Some(depth), ..SearchLimits::default() }
    }

    /// Only a time per move.
    pub fn movetime(time: Duration) -> SearchLimits {
        SearchLimits { movetime: Some(time), ..SearchLimits::default() }
    }

    /// The time this search may take, if any: the smaller of the move time (less the safety
    /// margin) and the clock's budget.
    pub fn time_budget(&self) -> Option<Duration> {
        let fixed = self.movetime.map(|t| t.saturating_sub(SAFETY_MARGIN).max(t / 2));
        let clock = self.clock.map(|c| c.budget());
        match (fixed, clock) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The deepest iteration to run.
    pub fn max_depth(&self) -> u32 {
        self.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH)
    }
}

/// Shared flags another thread uses to stop a running search or end its pondering.
#[derive(Debug, Default)]
pub struct SearchControl {
    stop: AtomicBool,
    pondering: AtomicBool,
}

impl SearchControl {
    /// A control for a search that is not pondering.
    pub fn new() -> Arc<SearchControl> {
        Arc::new(SearchControl::default())
    }

    /// Asks the search to stop and answer as soon as it can.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Marks the search as pondering (its clock does not run) or not.
    pub fn set_pondering(&self, pondering: bool) {
        self.pondering.store(pondering, Ordering::Relaxed);
    }

    /// Whether the search is pondering.
    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Relaxed)
    }
}

/// The running clock of one search: when it started (or when pondering ended) and its limits.
#[derive(Debug, Clone)]
pub(crate) struct Deadline {
    started: Instant,
    budget: Option<Duration>,
    nodes: Option<u64>,
    /// Whether time left unused is saved for later moves (a clock) or lost (a fixed move time).
    banks_time: bool,
    ponder_started: bool,
}

impl Deadline {
    pub fn new(limits: &SearchLimits) -> Deadline {
        Deadline {
            started: Instant::now(),
            budget: limits.time_budget(),
            nodes: limits.nodes,
            banks_time: limits.clock.is_some(),
            ponder_started: false,
        }
    }

    /// Whether the search must stop now, after `nodes` nodes.
    pub fn expired(&mut self, control: &SearchControl, nodes: u64) -> bool {
        if control.is_stopped() {
            return true;
        }
        if control.is_pondering() {
            self.ponder_started = true;
            return false;
        }
        if self.ponder_started {
            // The ponder hit: the move's own time starts now.
            self.ponder_started = false;
            self.started = Instant::now();
        }
        self.nodes.is_some_and(|limit| nodes >= limit) || self.budget.is_some_and(|b| self.started.elapsed() >= b)
    }

    /// Whether another iteration is worth starting. On a clock, one usually takes several
    /// times the last, so none starts after half the budget has gone and the rest is saved for
    /// later moves. A fixed move time cannot be saved: an unfinished iteration still searches
    /// the last best move first and keeps any move that beats it, so it starts while any of
    /// the time is left.
    pub fn next_iteration_fits(&self, control: &SearchControl) -> bool {
        let share = if self.banks_time { 2 } else { 1 };
        control.is_pondering() || self.budget.is_none_or(|b| self.started.elapsed() < b / share)
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_budget_shares_the_time_and_keeps_half_back() {
        let clock = Clock { remaining: Duration::from_secs(30), increment: Duration::from_secs(1), moves_to_go: None };
        assert_eq!(clock.budget(), Duration::from_millis(1750));
        let short =
            Clock { remaining: Duration::from_millis(100), increment: Duration::from_secs(10), moves_to_go: Some(1) };
        assert_eq!(short.budget(), Duration::from_millis(35));
    }

    #[test]
    fn movetime_and_clock_take_the_smaller() {
        let clock = Clock { remaining: Duration::from_secs(3), increment: Duration::ZERO, moves_to_go: Some(1) };
        let limits =
            SearchLimits { movetime: Some(Duration::from_millis(200)), clock: Some(clock), ..Default::default() };
        assert_eq!(limits.time_budget(), Some(Duration::from_millis(185)));
        assert_eq!(SearchLimits::default().time_budget(), None);
        assert_eq!(SearchLimits::depth(0).max_depth(), 1);
    }

    #[test]
    fn a_fixed_move_time_always_starts_the_next_iteration_a_clock_saves_half() {
        let control = SearchControl::new();
        let spent = |limits: &SearchLimits| {
            let mut deadline = Deadline::new(limits);
            deadline.started -= Duration::from_millis(150);
            deadline.next_iteration_fits(&control)
        };
        assert!(spent(&SearchLimits::movetime(Duration::from_millis(200))));
        let clock = Clock { remaining: Duration::from_secs(6), increment: Duration::ZERO, moves_to_go: Some(20) };
        assert!(!spent(&SearchLimits { clock: Some(clock), ..SearchLimits::default() }));
    }
}
