//! The engine's options: the official UQCI ones and ours.
//!
//! | option | type | default | meaning |
//! |---|---|---|---|
//! | `forceturn` | check | true | only the side to move may move |
//! | `forcewin` | check | true | the game ends by the win conditions |
//! | `forcemeasure` | check | true | `.m0` / `.m1` in `position ... moves` force outcomes |
//! | `resturl` | string | empty | a quantum board REST API (`qchess serve`) to run the moves on |
//! | `Level` | spin 1..6 | 3 | the depth and think time of a `go` without limits (none of `depth`, `nodes`, `movetime`, a clock, `infinite`; see [`level_think_time`]) |
//! | `CapDepth` | check | false | every `go` searches at most `Level` plies, also with a move time or a clock: the engine plays as the player `ai:LEVEL` |
//! | `MultiPV` | spin 1..256 | 1 | report the best N root moves, each with its exact value (`info ... multipv K score ...`) |
//! | `Analyse` | check | false | a `go` on a position reached by moves first judges the last move (`info string judgement ...`, see [`analysis`](crate::analysis)) |
//! | `ScoreScale` | spin 0..100000 | 2170 | centipawns of evaluation that make a 10-to-1 favourite when the search plays for expected score ([`score`](crate::score)); 0: it weighs outcomes in centipawns |
//! | `Hash` | spin 1..4096 | 4 | transposition table, MB (at most: a power of two of 32-byte entries) |
//! | `StateBudget` | spin 16..4194304 | 4096 | largest quantum state (basis states) the search grows |
//! | `Seed` | spin | 0 | seed of the measurement outcomes the engine's own board draws |
//! | `Rules` | combo | official | the rule set: official, classical, ... (every `RuleSet`) |
//! | `Ponder` | check | false | the GUI may send `go ponder` |

use qchess_core::text::with_causes;
use qchess_core::{Color, Fen};
use qchess_engine::{Game, GameOptions, RuleSet};

use super::protocol::GoParams;
use crate::player::{DEFAULT_LEVEL, MAX_LEVEL, level_config, level_think_time};
use crate::remote::RestBoard;
use crate::{Clock, DEFAULT_SCORE_SCALE, SearchConfig, SearchLimits};

/// The largest `ScoreScale`.
pub const MAX_SCORE_SCALE: u32 = 100_000;

/// Every option's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineOptions {
    /// `forceturn`.
    pub force_turn: bool,
    /// `forcewin`.
    pub force_win: bool,
    /// `forcemeasure`.
    pub force_measure: bool,
    /// `resturl`: empty for the built-in exact board.
    pub rest_url: Option<String>,
    /// `Level`.
    pub level: u32,
    /// `CapDepth`.
    pub cap_depth: bool,
    /// `MultiPV`.
    pub multi_pv: usize,
    /// `Analyse`.
    pub analyse: bool,
    /// `ScoreScale`: 0 for centipawns.
    pub score_scale: u32,
    /// `Hash`, in MB.
    pub hash_megabytes: usize,
    /// `StateBudget`.
    pub state_budget: usize,
    /// `Seed`.
    pub seed: u64,
    /// `Rules`.
    pub rules: RuleSet,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            force_turn: true,
            force_win: true,
            force_measure: true,
            rest_url: None,
            level: DEFAULT_LEVEL,
            cap_depth: false,
            multi_pv: 1,
            analyse: false,
            score_scale: DEFAULT_SCORE_SCALE as u32,
            hash_megabytes: SearchConfig::default().hash_megabytes,
            state_budget: SearchConfig::default().state_budget,
            seed: 0,
            rules: RuleSet::Official,
        }
    }
}

impl EngineOptions {
    /// The `option ...` lines `uci` answers.
    pub fn declarations() -> Vec<String> {
        let defaults = EngineOptions::default();
        vec![
            "option name forceturn type check default true".to_owned(),
            "option name forcewin type check default true".to_owned(),
            "option name forcemeasure type check default true".to_owned(),
            "option name resturl type string default <empty>".to_owned(),
            format!("option name Level type spin default {} min 1 max {MAX_LEVEL}", defaults.level),
            "option name CapDepth type check default false".to_owned(),
            "option name MultiPV type spin default 1 min 1 max 256".to_owned(),
            "option name Analyse type check default false".to_owned(),
            format!("option name ScoreScale type spin default {} min 0 max {MAX_SCORE_SCALE}", defaults.score_scale),
            format!("option name Hash type spin default {} min 1 max 4096", defaults.hash_megabytes),
            format!("option name StateBudget type spin default {} min 16 max 4194304", defaults.state_budget),
            "option name Seed type spin default 0 min 0 max 2147483647".to_owned(),
            format!(
                "option name Rules type combo default official {}",
                RuleSet::ALL.map(|r| format!("var {}", r.name())).join(" ")
            ),
            "option name Ponder type check default false".to_owned(),
        ]
    }

    /// Sets an option by name (any case); the error names what is wrong.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let value_text = value.map(str::trim).unwrap_or("");
        let check = || match value_text {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(format!("setoption {name}: expected true or false, not `{other}`")),
        };
        let spin =
            |min: u64, max: u64| {
                value_text.parse::<u64>().ok().filter(|v| (min..=max).contains(v)).ok_or_else(|| {
                    format!("setoption {name}: expected a number from {min} to {max}, not `{value_text}`")
                })
            };
        match name.to_ascii_lowercase().as_str() {
            "forceturn" => self.force_turn = check()?,
            "forcewin" => self.force_win = check()?,
            "forcemeasure" => self.force_measure = check()?,
            "resturl" => {
                self.rest_url = match value_text {
                    "" | "<empty>" => None,
                    url if url.starts_with("http://") || url.starts_with("https://") => Some(url.to_owned()),
                    other => return Err(format!("setoption resturl: `{other}` is not an http:// or https:// URL")),
                }
            }
            "level" => self.level = spin(1, u64::from(MAX_LEVEL))? as u32,
            "capdepth" => self.cap_depth = check()?,
            "multipv" => self.multi_pv = spin(1, 256)? as usize,
            "analyse" | "analyze" => self.analyse = check()?,
            "scorescale" => self.score_scale = spin(0, u64::from(MAX_SCORE_SCALE))? as u32,
            "hash" => self.hash_megabytes = spin(1, 4096)? as usize,
            "statebudget" => self.state_budget = spin(16, 1 << 22)? as usize,
            "seed" => self.seed = spin(0, i32::MAX as u64)?,
            "rules" => {
                self.rules = value_text.to_ascii_lowercase().parse().map_err(|_| {
                    let names = RuleSet::ALL.map(RuleSet::name).join(", ");
                    format!("setoption Rules: `{value_text}` is not one of {names}")
                })?;
            }
            "ponder" => {
                check()?;
            }
            _ => return Err(format!("setoption: unknown option `{name}`")),
        }
        Ok(())
    }

    /// The search configuration these options give.
    pub fn search_config(&self) -> SearchConfig {
        let (config, _) = level_config(self.level);
        SearchConfig {
            hash_megabytes: self.hash_megabytes,
            state_budget: self.state_budget,
            score_scale: (self.score_scale > 0).then_some(f64::from(self.score_scale)),
            ..config
        }
    }

    /// The limits of `go` for `side` to move: its own, the level's depth when it has none (or
    /// always, with `CapDepth`), and the level's think time too when it has no limit at all.
    pub fn go_limits(&self, go: &GoParams, side: Color) -> SearchLimits {
        let index = usize::from(side == Color::Black);
        let clock = go.time[index].map(|remaining| Clock {
            remaining,
            increment: go.increment[index].unwrap_or_default(),
            moves_to_go: go.moves_to_go,
        });
        let bare = !go.infinite && go.movetime.is_none() && clock.is_none() && go.nodes.is_none();
        let cap = (bare || self.cap_depth).then_some(self.level);
        let depth = match (go.depth, cap.filter(|_| self.cap_depth)) {
            (Some(asked), Some(cap)) => Some(asked.min(cap)),
            (asked, _) => asked.or(cap),
        };
        // A `go` with no limit at all plays as the level does: to its depth, within its time.
        let level_time = (bare && go.depth.is_none()).then(|| level_think_time(self.level));
        SearchLimits {
            depth,
            nodes: go.nodes,
            movetime: go.movetime.or(level_time),
            clock,
            infinite: go.infinite,
            every_root_value: self.multi_pv > 1,
        }
    }

    /// A game from `start` on the board these options name.
    pub fn new_game(&self, start: &Fen, options: GameOptions) -> Result<Game, String> {
        let game = match &self.rest_url {
            None => Game::new(start, options),
            Some(url) => {
                let board = RestBoard::new(url).map_err(|e| format!("resturl: {}", with_causes(&e)))?;
                Game::with_board(start, options, board)
            }
        };
        game.map_err(|e| format!("position: {}", with_causes(&e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_set_by_name_and_checked() {
        let mut options = EngineOptions::default();
        options.set("ForceTurn", Some("false")).unwrap();
        options.set("Level", Some("4")).unwrap();
        options.set("resturl", Some("http://127.0.0.1:8080")).unwrap();
        assert!(!options.force_turn);
        assert_eq!(options.level, 4);
        assert_eq!(options.search_config().score_scale, Some(2170.0));
        options.set("ScoreScale", Some("0")).unwrap();
        assert_eq!(options.search_config().score_scale, None);
        assert!(options.set("ScoreScale", Some("-1")).is_err());
        assert_eq!(options.rest_url.as_deref(), Some("http://127.0.0.1:8080"));
        assert_eq!(
            options.set("Level", Some("99")).unwrap_err(),
            "setoption Level: expected a number from 1 to 6, not `99`"
        );
        assert_eq!(
            options.set("forcewin", Some("yes")).unwrap_err(),
            "setoption forcewin: expected true or false, not `yes`"
        );
        assert!(options.set("Rules", Some("checkers")).is_err());
        options.set("Rules", Some("classical")).unwrap();
        assert_eq!(options.rules, RuleSet::Classical);
        assert!(options.set("Colour", Some("blue")).is_err());
    }

    #[test]
    fn a_go_without_limits_plays_as_the_level_and_its_own_limits_win() {
        let mut options = EngineOptions::default();
        options.set("Level", Some("5")).unwrap();
        let bare = options.go_limits(&GoParams::default(), Color::White);
        assert_eq!((bare.depth, bare.movetime), (Some(5), Some(level_think_time(5))));
        let depth = options.go_limits(&GoParams { depth: Some(2), ..GoParams::default() }, Color::White);
        assert_eq!((depth.depth, depth.movetime), (Some(2), None));
        let timed = GoParams { movetime: Some(std::time::Duration::from_millis(70)), ..GoParams::default() };
        let timed = options.go_limits(&timed, Color::White);
        assert_eq!((timed.depth, timed.movetime), (None, Some(std::time::Duration::from_millis(70))));
        let clock = GoParams { time: [None, Some(std::time::Duration::from_secs(9))], ..GoParams::default() };
        let on_clock = options.go_limits(&clock, Color::Black);
        assert_eq!((on_clock.depth, on_clock.movetime), (None, None));
        assert_eq!(on_clock.clock.map(|c| c.remaining), Some(std::time::Duration::from_secs(9)));
        options.set("CapDepth", Some("true")).unwrap();
        assert_eq!(options.go_limits(&clock, Color::Black).depth, Some(5));
    }
}
