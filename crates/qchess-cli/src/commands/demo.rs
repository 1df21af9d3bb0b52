//! `qchess demo`: a short narrated game on the built-in simulator showing a split, a merge,
//! a capture of a piece in superposition and a measurement. The seed fixes the measurement, so
//! the demo is the same on every run. `--rules classical` narrates a short classical game
//! instead (the scholar's mate), on the same pipeline, ending in checkmate; `--rules checkmate`
//! a short game of declared moves with the quantum mode toggle, a failed-or-played move onto a
//! square that may hold a piece, and a measurement.

use std::fmt::Write as _;

use anyhow::Result;
use qchess_core::Fen;
use qchess_engine::diagram::Diagram;
use qchess_engine::game::{is_mode_token, parse_mode_token};
use qchess_engine::{Game, GameOptions, PlayedMove, RuleSet};
use serde_json::json;

use super::game::{game_error, output};
use crate::exit::bad_input_at;
use crate::output::print;

/// Flags of `qchess demo`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Seed of the demo's one random measurement.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Draw the board with letters instead of Unicode chess symbols.
    #[arg(long)]
    ascii: bool,
    /// The rules of the narrated game: `official` (the default) or `classical`.
    #[arg(long, default_value = "official", value_name = "RULES")]
    rules: RuleSet,
}

/// One step: the move, what to say before it, and whether to show the board after it.
struct Step {
    mv: &'static str,
    before: &'static str,
    show_board: bool,
}

const STEPS: [Step; 9] = [
    Step {
        mv: "b1^a3c3",
        before: "White splits the knight on b1 between a3 and c3. It now stands on each square with \
                 probability 1/2, in one superposition.",
        show_board: true,
    },
    Step { mv: "e7e6", before: "Black opens the way for the queen and bishop.", show_board: false },
    Step {
        mv: "a3c3^b5",
        before: "White merges the two halves on b5. Their amplitudes interfere, and the knight is on b5 \
                 with certainty: the split is undone.",
        show_board: true,
    },
    Step { mv: "g8^f6h6", before: "Black splits the king's knight between f6 and h6.", show_board: false },
    Step { mv: "d2d3", before: "White opens the diagonal from c1 to h6.", show_board: false },
    Step { mv: "b8c6", before: "Black develops the other knight.", show_board: false },
    Step {
        mv: "c1xh6",
        before: "White's bishop captures on h6, where the knight is only half present. The bishop is \
                 certainly on c1 and its path certainly clear, so nothing is measured: the capture takes \
                 the h6 half, and the black knight lives on f6 with probability 1/2.",
        show_board: true,
    },
    Step {
        mv: "f7wf6",
        before: "Black's pawn steps onto f6, which its own knight may hold: an excluded move. The engine \
                 measures the question \"is f6 empty?\"",
        show_board: false,
    },
    Step {
        mv: "b5^a3d4",
        before: "White splits the knight on b5 between a3 and d4, and the game goes on in superposition.",
        show_board: false,
    },
];

/// The scholar's mate, narrated for `--rules classical`.
const CLASSICAL_STEPS: [Step; 7] = [
    Step { mv: "e2e4", before: "White takes the centre with the king's pawn.", show_board: false },
    Step { mv: "e7e5", before: "Black answers in kind.", show_board: false },
    Step { mv: "f1c4", before: "White's bishop aims at f7, the square only Black's king defends.", show_board: false },
    Step { mv: "b8c6", before: "Black develops the queen's knight.", show_board: false },
    Step {
        mv: "d1h5",
        before: "White's queen joins the attack on f7 and hits the pawn on e5 as well.",
        show_board: true,
    },
    Step {
        mv: "g8f6",
        before: "Black attacks the queen with the knight, but leaves f7 defended by the king alone.",
        show_board: false,
    },
    Step {
        mv: "h5xf7",
        before: "The queen takes on f7, protected by the bishop. Black's king is in check, and the classical \
                 rules find no move that gets it out: checkmate.",
        show_board: false,
    },
];

/// Declared moves, the mode toggle and a measurement, narrated for `--rules checkmate`.
const CHECKMATE_STEPS: [Step; 7] = [
    Step {
        mv: "b1^a3c3",
        before: "Quantum mode is on at the start, so White may split: the knight on b1 goes to a3 and c3 at once.",
        show_board: true,
    },
    Step {
        mv: "mode:classical",
        before: "Black switches quantum mode off. The toggle uses no turn; until it is switched back, nobody \
                 may split.",
        show_board: false,
    },
    Step { mv: "e7e6", before: "Black, still to move, plays a classical move.", show_board: false },
    Step {
        mv: "c2c3",
        before: "White declares a non-capture onto c3, which the knight may hold. The declaration is locked: \
                 c3 is measured first, and the move fails if it is occupied.",
        show_board: true,
    },
    Step { mv: "mode:quantum", before: "Black switches quantum mode back on.", show_board: false },
    Step { mv: "g8^f6h6", before: "Black splits the king's knight between f6 and h6.", show_board: false },
    Step {
        mv: "?f6",
        before: "White measures f6 instead of moving: the knight's whole entangled group collapses, and the \
                 turn ends.",
        show_board: false,
    },
];

/// The opening line and the moves of the demo under `rules`.
fn script(rules: RuleSet) -> Result<(&'static str, &'static [Step])> {
    match rules {
        RuleSet::Official => {
            Ok(("Quantum Chess demo: every move runs as a circuit on the built-in simulator.", &STEPS))
        }
        RuleSet::Classical => Ok((
            "Classical chess demo: the same pipeline, every move a circuit on the built-in simulator, \
             with check and checkmate.",
            &CLASSICAL_STEPS,
        )),
        RuleSet::Checkmate => Ok((
            "Checkmate rules demo (seeds 003 and 004): declared moves, collapse before validation, and \
             a quantum mode that players switch during the game.",
            &CHECKMATE_STEPS,
        )),
        other => Err(bad_input_at(
            "--rules",
            format!(
                "the demo narrates the official, classical and checkmate rules, not {other}; try `qchess game --rules {other}`"
            ),
        )),
    }
}

/// Runs `qchess demo`.
pub fn run(args: Args, json: bool) -> Result<()> {
    let (intro, script) = script(args.rules)?;
    let options = GameOptions { rules: args.rules, ..GameOptions::with_seed(args.seed) };
    let mut game = Game::new(&Fen::start(), options).map_err(|e| game_error(e, "demo".to_owned()))?;
    let diagram = if args.ascii { Diagram::ascii() } else { Diagram::unicode() };
    let mut text = format!("{}\n\n", wrap(intro));
    let mut steps = Vec::new();
    for step in script {
        if is_mode_token(step.mv) {
            let quantum = parse_mode_token(step.mv)?;
            game.set_quantum_mode(quantum).map_err(|e| game_error(e, format!("demo {}", step.mv)))?;
            let _ = writeln!(text, "{}\n  {} (no turn used)\n", wrap(step.before), step.mv);
            steps.push(json!({"narration": step.before, "mode_change": step.mv}));
            continue;
        }
        let played = game.play(step.mv).map_err(|e| game_error(e, format!("demo move {}", step.mv)))?;
        let after = if args.rules == RuleSet::Checkmate {
            checkmate_aftermath(&played)
        } else {
            aftermath(&mut game, &played)?
        };
        let _ = writeln!(text, "{}\n  {}", wrap(step.before), output::describe_move(&played));
        if !after.is_empty() {
            let _ = writeln!(text, "{}", wrap(&after));
        }
        if step.show_board {
            let _ = write!(text, "\n{}", diagram.render(game.position()));
        }
        text.push('\n');
        steps.push(json!({"narration": step.before, "aftermath": after, "move": output::move_json(&played)}));
    }
    let _ = writeln!(text, "Final position:\n{}{}", diagram.render(game.position()), output::status_line(&game));
    let distribution = game.distribution().map_err(|e| game_error(e, "demo".to_owned()))?;
    let configurations = match distribution.len() {
        1 => "one configuration".to_owned(),
        n => format!("{n} configurations"),
    };
    let _ = writeln!(text, "The board is in {configurations}, each square's probability shown above.");
    if json {
        return print(&format!("{}\n", json!({"steps": steps, "game": output::game_json(&game)})));
    }
    print(&text)
}

/// What to say after a move: the entanglement a split made, or how the measurement went.
fn aftermath(game: &mut Game, played: &PlayedMove) -> Result<String> {
    let text = match played.notation.to_string().as_str() {
        "b1^a3c3" => {
            let a3 = "a3".parse()?;
            let entanglement = game.entanglement(a3).map_err(|e| game_error(e, "demo analysis".to_owned()))?;
            format!(
                "The two squares are maximally entangled: their log negativity is {:.0} (one ebit).",
                entanglement[usize::from(qchess_core::Square::C3)]
            )
        }
        _ if played.report.outcome_probability.is_some() => {
            if played.report.proceeded {
                "The answer was yes: the knight had been captured on h6, so f6 was empty and the pawn \
                 moved there."
                    .to_owned()
            } else {
                "The answer was no: the knight survived, now certainly on f6, and the pawn stays on f7. \
                 The measurement still used Black's turn."
                    .to_owned()
            }
        }
        _ => String::new(),
    };
    Ok(text)
}

/// What a checkmate-rules measurement found.
fn checkmate_aftermath(played: &PlayedMove) -> String {
    let Some(collapse) = played.collapse else { return String::new() };
    let occupied = collapse.outcome == Some(true);
    match (played.declared.to_string().starts_with('?'), occupied) {
        (true, true) => "The knight was on f6; h6 is empty.",
        (true, false) => "f6 was empty: the knight is on h6.",
        (false, true) => "c3 held the knight: the pawn stays on c2, and the failed move still ended White's turn.",
        (false, false) => "c3 was empty, so the knight is on a3, and the pawn moved.",
    }
    .to_owned()
}

/// Wraps prose at 78 columns.
fn wrap(text: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > 78 {
            let _ = writeln!(out, "{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out
}
