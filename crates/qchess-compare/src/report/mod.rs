//! The result of a comparison: every step's test with its Holm-adjusted p-value, the verdict,
//! and the squares (or bits) that differ most. Serialises to JSON; [`markdown`] prints a
//! summary fit for a CI log.

pub mod markdown;

use qchess_core::Square;
use serde::Serialize;

use crate::game::{ItemRun, KeyKind, StepRun};
use crate::observation::Observation;
use crate::stats::holm::holm_adjusted;
use crate::stats::pair::{PairOptions, PairTest};

/// How a comparison was run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Settings {
    /// The family-wise significance level (default 0.01).
    pub alpha: f64,
    /// Shots per job of sampling backends, before post-selection grows them.
    pub shots: u64,
    /// The seed of drawn outcomes and of the bootstrap.
    pub seed: u64,
    /// The per-step test settings.
    pub pair: PairOptions,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings { alpha: 0.01, shots: 1000, seed: 0, pair: PairOptions::default() }
    }
}

/// The marginal probability of one square (or bit) on both backends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    /// The square (`b5`) or bit (`bit 3`).
    pub name: String,
    /// Its probability on backend A.
    pub a: f64,
    /// Its probability on backend B.
    pub b: f64,
    /// `b - a`.
    pub difference: f64,
    /// The difference over its standard error, `sqrt(p(1-p)/n)` of each sampled side; `None`
    /// when both sides are exact.
    pub z: Option<f64>,
}

/// Probabilities closer than this are the same number: sums of the same terms in another order
/// differ in the last bits, and such a difference is no difference a report should name.
pub const SAME_PROBABILITY: f64 = 1e-9;

/// The probability of one whole outcome (a board, or a circuit's bits) on both backends.
#[derive(Debug, Clone, PartialEq)]
pub struct OutcomeDifference {
    /// The outcome in words: the squares that vary, occupied or empty (`f3 h3 occupied`), or
    /// the bits (`outcome 0101`).
    pub name: String,
    /// Its probability on backend A.
    pub a: f64,
    /// Its probability on backend B.
    pub b: f64,
}

/// One compared move or circuit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepReport {
    /// The ply (games) or 1 (circuits).
    pub index: usize,
    /// The move as played (`f3xd4.m1`) or the circuit's name.
    pub label: String,
    /// The typed move or the circuit's shape.
    pub detail: String,
    /// The exact probability of the move's outcome, when it measured.
    pub outcome_probability: Option<f64>,
    /// The test and the distances.
    pub test: PairTest,
    /// The Holm-adjusted p-value, for steps that count as tests.
    pub adjusted_p_value: Option<f64>,
    /// Whether this step's hypothesis of agreement is rejected.
    pub rejected: bool,
    /// Every square (bit) that is possible on either side, most different first.
    pub differences: Vec<Difference>,
    /// What backend A showed.
    pub a: Option<Observation>,
    /// What backend B showed.
    pub b: Option<Observation>,
    /// A remark, for example why the game stopped here.
    pub note: Option<String>,
}

/// One compared game or circuit file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ItemReport {
    /// Its name.
    pub name: String,
    /// `game` or `circuit`.
    pub kind: &'static str,
    /// Bits of a circuit's outcomes (games: none, outcomes are boards).
    pub bits: Option<usize>,
    /// Why the comparison stopped early.
    pub stopped: Option<String>,
    /// The steps.
    pub steps: Vec<StepReport>,
}

impl ItemReport {
    /// How outcome keys of this item are read.
    pub fn keys(&self) -> KeyKind {
        self.bits.map_or(KeyKind::Boards, KeyKind::Bits)
    }
}

/// A whole comparison. See the [module docs](self).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Backend A's label.
    pub backend: String,
    /// Backend B's label.
    pub vs: String,
    /// The settings.
    pub settings: Settings,
    /// Whether the backends agree: no counted test rejected at `alpha` after Holm's correction.
    pub agree: bool,
    /// `agree` or `disagree`.
    pub verdict: &'static str,
    /// Steps that count as tests.
    pub tests: usize,
    /// Tests rejected.
    pub rejected: usize,
    /// The games or circuits.
    pub items: Vec<ItemReport>,
    /// Plot files written, if any.
    pub plots: Vec<String>,
}

impl Report {
    /// Applies Holm's correction across every counted step of `items` and decides.
    pub fn new(backend: String, vs: String, settings: Settings, items: Vec<ItemRun>) -> Report {
        let counted: Vec<(usize, usize)> = items
            .iter()
            .enumerate()
            .flat_map(|(i, item)| {
                item.steps.iter().enumerate().filter(|(_, s)| s.test.counts_as_test()).map(move |(j, _)| (i, j))
            })
            .collect();
        let p_values: Vec<f64> = counted.iter().map(|&(i, j)| items[i].steps[j].test.p_value).collect();
        let adjusted = holm_adjusted(&p_values);
        let mut adjusted_of = vec![Vec::new(); items.len()];
        for (i, item) in items.iter().enumerate() {
            adjusted_of[i] = vec![None; item.steps.len()];
        }
        for (&(i, j), &p) in counted.iter().zip(&adjusted) {
            adjusted_of[i][j] = Some(p);
        }
        let items: Vec<ItemReport> = items
            .into_iter()
            .zip(adjusted_of)
            .map(|(item, adjusted)| {
                let keys = item.keys;
                let steps = item
                    .steps
                    .into_iter()
                    .zip(adjusted)
                    .enumerate()
                    .map(|(index, (step, adjusted))| step_report(index + 1, step, adjusted, keys, settings.alpha))
                    .collect();
                let bits = match keys {
                    KeyKind::Boards => None,
                    KeyKind::Bits(n) => Some(n),
                };
                let kind = if bits.is_some() { "circuit" } else { "game" };
                ItemReport { name: item.name, kind, bits, stopped: item.stopped, steps }
            })
            .collect();
        let rejected = items.iter().flat_map(|i| &i.steps).filter(|s| s.rejected).count();
        Report {
            backend,
            vs,
            settings,
            agree: rejected == 0,
            verdict: if rejected == 0 { "agree" } else { "disagree" },
            tests: counted.len(),
            rejected,
            items,
            plots: Vec::new(),
        }
    }

    /// The rejected steps with their items, in order.
    pub fn disagreements(&self) -> impl Iterator<Item = (&ItemReport, &StepReport)> {
        self.items.iter().flat_map(|item| item.steps.iter().filter(|s| s.rejected).map(move |s| (item, s)))
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

fn step_report(index: usize, step: StepRun, adjusted: Option<f64>, keys: KeyKind, alpha: f64) -> StepReport {
    let differences = match (&step.a, &step.b) {
        (Some(a), Some(b)) => differences(a, b, keys),
        _ => Vec::new(),
    };
    StepReport {
        index,
        label: step.label,
        detail: step.detail,
        outcome_probability: step.outcome_probability,
        rejected: adjusted.is_some_and(|p| p <= alpha),
        adjusted_p_value: adjusted,
        test: step.test,
        differences,
        a: step.a,
        b: step.b,
        note: step.note,
    }
}

/// The name of bit `bit` of an outcome key.
pub fn bit_name(keys: KeyKind, bit: usize) -> String {
    match keys {
        KeyKind::Boards => Square::ALL.get(bit).map_or_else(|| format!("bit {bit}"), |s| s.to_string()),
        KeyKind::Bits(_) => format!("bit {bit}"),
    }
}

/// How many bits an outcome key of this kind has.
pub fn key_width(keys: KeyKind) -> usize {
    match keys {
        KeyKind::Boards => 64,
        KeyKind::Bits(n) => n.min(64),
    }
}

/// Per-bit marginals of both sides, every bit possible on either, most different first.
pub fn differences(a: &Observation, b: &Observation, keys: KeyKind) -> Vec<Difference> {
    let (pa, pb) = (a.bit_probabilities(), b.bit_probabilities());
    let variance = |observation: &Observation, p: f64| observation.shots().map_or(0.0, |n| p * (1.0 - p) / n as f64);
    let mut out: Vec<Difference> = (0..key_width(keys))
        .filter(|&bit| pa[bit] > 0.0 || pb[bit] > 0.0)
        .map(|bit| {
            let raw = pb[bit] - pa[bit];
            let difference = if raw.abs() <= SAME_PROBABILITY { 0.0 } else { raw };
            let spread = (variance(a, pa[bit]) + variance(b, pb[bit])).sqrt();
            let z = (a.shots().is_some() || b.shots().is_some()).then(|| {
                if spread > 0.0 {
                    difference / spread
                } else if difference == 0.0 {
                    0.0
                } else {
                    difference.signum() * f64::INFINITY
                }
            });
            Difference { name: bit_name(keys, bit), a: pa[bit], b: pb[bit], difference, z }
        })
        .collect();
    out.sort_by(|x, y| y.difference.abs().total_cmp(&x.difference.abs()));
    out
}

/// Whole outcomes whose probabilities differ, most different (absolute difference) first: what
/// differs when every square's (bit's) own probability agrees and only their correlation does.
pub fn outcome_differences(a: &Observation, b: &Observation, keys: KeyKind) -> Vec<OutcomeDifference> {
    let mut all: Vec<u64> = a.keys().into_iter().chain(b.keys()).collect();
    all.sort_unstable();
    all.dedup();
    let varying = all.iter().fold(0, |mask, &key| mask | (key ^ all[0]));
    let mut out: Vec<OutcomeDifference> = all
        .into_iter()
        .map(|key| (key, a.probability(key), b.probability(key)))
        .filter(|(_, pa, pb)| (pb - pa).abs() > SAME_PROBABILITY)
        .map(|(key, pa, pb)| OutcomeDifference { name: outcome_name(keys, varying, key), a: pa, b: pb })
        .collect();
    out.sort_by(|x, y| (y.b - y.a).abs().total_cmp(&(x.b - x.a).abs()));
    out
}

/// An outcome in words: which of the varying squares it occupies, or its bits.
fn outcome_name(keys: KeyKind, varying: u64, key: u64) -> String {
    match keys {
        KeyKind::Boards => {
            let names = |occupied: bool| -> Vec<String> {
                (0..64)
                    .filter(|&bit| varying >> bit & 1 == 1 && (key >> bit & 1 == 1) == occupied)
                    .map(|bit| bit_name(keys, bit))
                    .collect()
            };
            let (on, off) = (names(true), names(false));
            match (on.is_empty(), off.is_empty()) {
                (false, true) => format!("{} occupied", on.join(" ")),
                (true, false) => format!("{} empty", off.join(" ")),
                (false, false) => format!("{} occupied, {} empty", on.join(" "), off.join(" ")),
                (true, true) => "the only board".to_owned(),
            }
        }
        KeyKind::Bits(n) => {
            let width = n.clamp(1, 64);
            format!("outcome {key:0width$b}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F3: u64 = 1 << 21;
    const H3: u64 = 1 << 23;
    /// Both kings and a rook: the squares every board below occupies.
    const BASE: u64 = (1 << 4) | (1 << 60) | (1 << 0);

    fn exact(pairs: &[(u64, f64)]) -> Observation {
        Observation::exact(pairs.iter().copied()).expect("a distribution")
    }

    #[test]
    fn squares_are_ranked_by_how_much_their_probability_moved() {
        // A split knight on f3/h3; backend B loses every piece 3% of the time, so each occupied
        // square moves from 1.000 to 0.970 and each half of the knight only by 0.015.
        let a = exact(&[(BASE | F3, 0.5), (BASE | H3, 0.5)]);
        let b = exact(&[(0, 0.03), (BASE | F3, 0.485), (BASE | H3, 0.485)]);
        let named: Vec<(String, f64)> =
            differences(&a, &b, KeyKind::Boards).into_iter().map(|d| (d.name, d.difference)).collect();
        let names: Vec<&str> = named.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a1", "e1", "e8", "f3", "h3"]);
        for (name, difference) in &named[..3] {
            assert!((difference + 0.03).abs() < 1e-12, "{name}: {difference}");
        }
        for (name, difference) in &named[3..] {
            assert!((difference + 0.015).abs() < 1e-12, "{name}: {difference}");
        }
    }

    #[test]
    fn rounding_noise_is_no_difference() {
        let a = exact(&[(BASE | F3, 0.5), (BASE | H3, 0.5)]);
        let b = exact(&[(BASE | F3, 0.5000000000000001), (BASE | H3, 0.4999999999999999)]);
        assert!(differences(&a, &b, KeyKind::Boards).iter().all(|d| d.difference == 0.0));
        assert!(outcome_differences(&a, &b, KeyKind::Boards).is_empty());
    }

    #[test]
    fn when_only_the_correlation_differs_whole_outcomes_are_named() {
        let a = exact(&[(BASE | F3, 0.5), (BASE | H3, 0.5)]);
        let b = exact(&[(BASE, 0.015), (BASE | F3, 0.485), (BASE | H3, 0.485), (BASE | F3 | H3, 0.015)]);
        assert!(differences(&a, &b, KeyKind::Boards).iter().all(|d| d.difference == 0.0));
        let outcomes: Vec<String> = outcome_differences(&a, &b, KeyKind::Boards)
            .iter()
            .map(|o| format!("{} {:.3} vs {:.3}", o.name, o.a, o.b))
            .collect();
        assert_eq!(outcomes.len(), 4);
        for expected in [
            "f3 h3 empty 0.000 vs 0.015",
            "f3 h3 occupied 0.000 vs 0.015",
            "f3 occupied, h3 empty 0.500 vs 0.485",
            "h3 occupied, f3 empty 0.500 vs 0.485",
        ] {
            assert!(outcomes.iter().any(|o| o == expected), "{expected} in {outcomes:?}");
        }
        let b = exact(&[(0b01, 0.7), (0b10, 0.2), (0b11, 0.1)]);
        let bits: Vec<String> =
            outcome_differences(&exact(&[(0b01, 1.0)]), &b, KeyKind::Bits(2)).into_iter().map(|o| o.name).collect();
        assert_eq!(bits, ["outcome 01", "outcome 10", "outcome 11"]);
    }
}
