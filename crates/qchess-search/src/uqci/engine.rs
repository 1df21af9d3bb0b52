//! The UQCI engine: commands in, replies out, the search in a thread of its own so `isready`,
//! `stop` and `ponderhit` are answered while it runs.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use qchess_core::PositionSpec;
use qchess_core::text::with_causes;
use qchess_engine::record::{GameRecord, RecordInfo};
use qchess_engine::{Game, GameOptions};

use super::options::EngineOptions;
use super::protocol::{Command, GoParams, parse_command};
use super::report::{info_line, judge_last_move, multipv_lines};
use crate::limits::{SearchControl, SearchLimits};
use crate::{SearchInfo, Searcher};

/// How often a finished `go infinite` or `go ponder` looks for its `stop` or `ponderhit`.
const WAIT_POLL: Duration = Duration::from_millis(2);

/// Where replies go: one line at a time, flushed, from either thread.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    /// Replies written to `writer`.
    pub fn new(writer: impl Write + Send + 'static) -> Output {
        Output(Arc::new(Mutex::new(Box::new(writer))))
    }

    /// Writes one line. A closed output is not an error the engine can do anything about.
    pub fn line(&self, text: &str) {
        if let Ok(mut out) = self.0.lock() {
            let _ = writeln!(out, "{text}");
            let _ = out.flush();
        }
    }
}

/// A search running in its thread.
struct Running {
    control: Arc<SearchControl>,
    handle: JoinHandle<Searcher>,
    /// `go infinite` or `go ponder`: it answers only when told to.
    waits: bool,
}

/// The engine's state between commands.
pub struct Engine {
    out: Output,
    options: EngineOptions,
    game: Option<Game>,
    searcher: Option<Searcher>,
    running: Option<Running>,
    debug: bool,
}

impl Engine {
    /// An engine at the standard start, writing to `out`.
    pub fn new(out: Output) -> Engine {
        Engine::with_options(out, EngineOptions::default())
    }

    /// An engine whose options start as `options` (`setoption` changes them as usual).
    pub fn with_options(out: Output, options: EngineOptions) -> Engine {
        let searcher = Searcher::new(options.search_config());
        Engine { out, options, game: Some(Game::standard()), searcher: Some(searcher), running: None, debug: false }
    }

    /// Handles one line; `false` once the engine should exit (`quit`).
    pub fn handle(&mut self, line: &str) -> bool {
        let command = match parse_command(line) {
            Ok(Some(command)) => command,
            Ok(None) => {
                if self.debug && !line.trim().is_empty() {
                    self.info(&format!("ignored unknown command: {}", line.trim()));
                }
                return true;
            }
            Err(error) => {
                self.info(&with_causes(&error));
                return true;
            }
        };
        match command {
            Command::Uci => {
                self.out.line(&format!("id name qchess {}", env!("CARGO_PKG_VERSION")));
                self.out.line("id author the qchess authors");
                for option in EngineOptions::declarations() {
                    self.out.line(&option);
                }
                self.out.line("uciok");
            }
            Command::Debug(on) => self.debug = on,
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption { name, value } => {
                if let Err(error) = self.options.set(&name, value.as_deref()) {
                    self.info(&error);
                } else if let Some(searcher) = &mut self.searcher
                    && searcher.config() != &self.options.search_config()
                {
                    *searcher = Searcher::new(self.options.search_config());
                }
            }
            Command::NewGame => {
                self.finish_search();
                if let Some(searcher) = &mut self.searcher {
                    searcher.clear();
                }
                self.game = Some(Game::standard());
            }
            Command::Position(spec) => {
                self.finish_search();
                self.set_position(&spec);
            }
            Command::Go(go) => self.go(&go),
            Command::Stop => self.finish_search(),
            Command::PonderHit => {
                if let Some(running) = &self.running {
                    running.control.set_pondering(false);
                }
            }
            Command::Quit => {
                self.finish_search();
                return false;
            }
            Command::CalcBell(first, second) => match self.game.as_mut().map(|g| g.bell_correlations(first, second)) {
                Some(Ok(bell)) => {
                    let values: Vec<String> = bell.values.iter().map(|v| format!("{v:.9}")).collect();
                    self.out.line(&format!("bell {first} {second} {}", values.join(" ")));
                }
                Some(Err(error)) => self.info(&format!("calcbell: {}", with_causes(&error))),
                None => self.info("calcbell: no position is set"),
            },
        }
        true
    }

    /// Stops a running search and waits for its `bestmove`.
    pub fn finish_search(&mut self) {
        self.join_search(true);
    }

    /// At the end of the input: lets a search with limits run to them (a script piping
    /// commands wants its answer), stops one that would wait for `stop`.
    pub fn end_of_input(&mut self) {
        let stop = self.running.as_ref().is_some_and(|running| running.waits);
        self.join_search(stop);
    }

    fn join_search(&mut self, stop: bool) {
        if let Some(running) = self.running.take() {
            if stop {
                running.control.stop();
            }
            match running.handle.join() {
                Ok(searcher) => self.searcher = Some(searcher),
                Err(_) => {
                    self.info("the search failed; starting afresh");
                    self.searcher = Some(Searcher::new(self.options.search_config()));
                }
            }
        }
    }

    fn info(&self, text: &str) {
        // One line per message: a newline would start a line the GUI reads as a command.
        self.out.line(&format!("info string {}", text.replace(['\n', '\r'], " ")));
    }

    fn set_position(&mut self, spec: &PositionSpec) {
        let options = GameOptions {
            seed: self.options.seed,
            enforce_turn_order: self.options.force_turn,
            enforce_win_conditions: self.options.force_win,
            force_outcomes: self.options.force_measure,
            rules: self.options.rules,
            ..GameOptions::default()
        };
        let built = self.options.new_game(&spec.start.to_fen(), options).and_then(|mut game| {
            for (index, mv) in spec.moves.iter().enumerate() {
                game.play_notation(mv).map_err(|e| format!("position: move {}: {}", index + 1, with_causes(&e)))?;
            }
            Ok(game)
        });
        match built {
            Ok(game) => self.game = Some(game),
            Err(error) => {
                self.info(&error);
                self.game = None;
            }
        }
    }

    fn go(&mut self, go: &GoParams) {
        // A search still thinking is stopped and answers first: one bestmove for every go.
        if self.running.as_ref().is_some_and(|running| !running.handle.is_finished()) {
            self.info("go: a search was still running; it is stopped first");
        }
        self.finish_search();
        let Some(game) = &self.game else {
            self.info("go: no valid position is set");
            self.out.line("bestmove 0000");
            return;
        };
        // Observer-rules pairs are legal moves too, and may be the only ones. A game that is
        // over still has its last move judged (`Analyse`) before the `bestmove 0000`.
        let over = game.is_over() || game.legal_notations().is_empty();
        let limits = self.options.go_limits(go, game.turn());
        let multi_pv = self.options.multi_pv;
        // The last move's judgement searches the position before it within the same limits
        // (to the level's depth when the go has none).
        let judgement = self.options.analyse.then(|| SearchLimits {
            infinite: false,
            depth: limits.depth.or((limits.movetime.is_none() && limits.clock.is_none() && limits.nodes.is_none())
                .then_some(self.options.level)),
            ..limits
        });
        let config = self.options.search_config();
        let record = GameRecord::from_game(game, &RecordInfo::default());
        let options = game.options();
        let control = SearchControl::new();
        control.set_pondering(go.ponder);
        let waits = go.infinite || go.ponder;
        let mut searcher = self.searcher.take().unwrap_or_else(|| Searcher::new(self.options.search_config()));
        let (out, thread_control, root) = (self.out.clone(), Arc::clone(&control), go.search_moves.clone());
        let handle = std::thread::spawn(move || {
            let found = match record
                .replay_on(qchess_sim::local_board::LocalBoard::new(qchess_core::Bitboard::EMPTY), options)
            {
                Ok(game) => {
                    if let Some(line) = judgement.and_then(|limits| judge_last_move(&game, config, &limits)) {
                        out.line(&line);
                    }
                    let mut report = |info: &SearchInfo| {
                        if multi_pv > 1 {
                            multipv_lines(info, multi_pv).iter().for_each(|line| out.line(line));
                        } else {
                            out.line(&info_line(info));
                        }
                    };
                    if over {
                        Err("the game is over; there is no move to make".to_owned())
                    } else {
                        searcher
                            .search_with(&game, &limits, &root, &thread_control, &mut report)
                            .map_err(|e| with_causes(&e))
                    }
                }
                Err(error) => Err(with_causes(&error)),
            };
            // `go infinite` and `go ponder` answer only when told to.
            while waits && !over && !thread_control.is_stopped() && (limits.infinite || thread_control.is_pondering()) {
                std::thread::sleep(WAIT_POLL);
            }
            match found {
                Ok(found) => {
                    out.line(&info_line(&found));
                    let ponder = found.pv.get(1).map(|mv| format!(" ponder {mv}")).unwrap_or_default();
                    out.line(&format!("bestmove {}{ponder}", found.to_play()));
                }
                Err(error) => {
                    out.line(&format!("info string go: {error}"));
                    out.line("bestmove 0000");
                }
            }
            searcher
        });
        self.running = Some(Running { control, handle, waits });
    }
}
