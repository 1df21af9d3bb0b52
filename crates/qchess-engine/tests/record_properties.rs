//! Property tests of the record format: printed records parse back equal, and no input,
//! random or mutated, makes the parser (or a replay) panic.

use proptest::prelude::*;
use qchess_core::notation::{AlgebraicMove, Notation, VariantMarker};
use qchess_core::text::with_causes;
use qchess_core::{MoveSquares, Role, Square};
use qchess_engine::GameResult;
use qchess_engine::record::{GameRecord, RecordedMove, Tag};

fn square() -> impl Strategy<Value = Square> {
    (0u8..64).prop_map(|i| Square::new(i).unwrap_or(Square::A1))
}

fn role() -> impl Strategy<Value = Role> {
    prop::sample::select(Role::ALL.to_vec())
}

fn squares() -> impl Strategy<Value = MoveSquares> {
    prop_oneof![
        (square(), square()).prop_map(|(from, to)| MoveSquares::Standard { from, to }),
        (square(), square(), square()).prop_map(|(from, to1, to2)| MoveSquares::Split { from, to1, to2 }),
        (square(), square(), square()).prop_map(|(from1, from2, to)| MoveSquares::Merge { from1, from2, to }),
    ]
    .prop_filter("squares are distinct", |s| {
        let mut all = s.sources();
        all.extend(s.targets());
        all.iter().enumerate().all(|(i, sq)| !all[i + 1..].contains(sq))
    })
}

fn notation() -> impl Strategy<Value = Notation> {
    let marker = prop::option::of(prop::sample::select(vec![VariantMarker::Capture, VariantMarker::Excluded]));
    let promotion = prop::option::of(prop::sample::select(Role::PROMOTIONS.to_vec()));
    let moves = (prop::option::of(role()), squares(), marker, promotion, prop::option::of(any::<bool>())).prop_map(
        |(piece, squares, marker, promotion, outcome)| {
            let standard = matches!(squares, MoveSquares::Standard { .. });
            Notation::Move(AlgebraicMove {
                piece,
                squares,
                marker: marker.filter(|_| standard),
                promotion: promotion.filter(|_| standard),
                outcome,
            })
        },
    );
    prop_oneof![9 => moves, 1 => Just(Notation::Null)]
}

fn comment() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop::collection::vec("[a-zA-Z0-9.,;:!?'\"()\\[\\]{-]{1,8}", 1..6).prop_map(|w| w.join(" ")))
}

fn result() -> impl Strategy<Value = GameResult> {
    prop::sample::select(vec![GameResult::WhiteWins, GameResult::BlackWins, GameResult::Draw, GameResult::Ongoing])
}

fn record() -> impl Strategy<Value = GameRecord> {
    let tags = prop::collection::btree_map("[A-Za-z0-9_]{1,10}", "[ -~]{0,24}", 0..8);
    let moves = prop::collection::vec((notation(), comment()), 0..30);
    (tags, comment(), moves, result(), any::<bool>()).prop_map(|(tags, intro, moves, result, tag_result)| {
        let mut record = GameRecord {
            tags: tags
                .into_iter()
                .filter(|(name, _)| name != "Result")
                .map(|(name, value)| Tag { name, value })
                .collect(),
            comment: intro,
            moves: moves.into_iter().map(|(notation, comment)| RecordedMove { notation, comment }).collect(),
            result,
        };
        if tag_result {
            record.set_tag("Result", result.token());
        }
        record
    })
}

/// A small edit of a text: insert, delete or replace one character.
fn mutate(text: &str, position: usize, edit: u8, character: char) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let at = if chars.is_empty() { 0 } else { position % (chars.len() + 1) };
    match edit % 3 {
        0 => chars.insert(at, character),
        1 if at < chars.len() => {
            chars.remove(at);
        }
        _ if at < chars.len() => chars[at] = character,
        _ => chars.push(character),
    }
    chars.into_iter().collect()
}

const VALID: &str =
    "[Event \"x\"]\n[Seed \"3\"]\n\n{ intro } 1. g1^f3h3 b8^c6a6 2. e2e3 c6d4 3. f3xd4.m1 { note } 3... a6b4 *\n";

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn printed_records_parse_back_equal(record in record()) {
        let text = record.to_string();
        let parsed: GameRecord = text.parse().map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&parsed, &record, "{}", text);
        prop_assert_eq!(parsed.to_string(), text);
    }

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        let _ = text.parse::<GameRecord>();
    }

    #[test]
    fn record_like_text_never_panics(text in "[\\[\\]\"{}; .a-h1-8^xwqnrbkNBRQK0-9/*\\n-]{0,120}") {
        if let Ok(record) = text.parse::<GameRecord>() {
            let _ = record.replay();
        }
    }

    #[test]
    fn mutated_records_never_panic(edits in prop::collection::vec((any::<usize>(), any::<u8>(), any::<char>()), 1..6)) {
        let mut text = VALID.to_owned();
        for (position, edit, character) in edits {
            text = mutate(&text, position, edit, character);
        }
        if let Ok(record) = text.parse::<GameRecord>() {
            let _ = record.replay();
            let _ = record.to_string().parse::<GameRecord>();
        }
    }
}

/// Text as a corrupt or hostile file gives it: random bytes (invalid UTF-8 replaced), control
/// characters among record tokens, and a very long line.
fn hostile_record() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..400).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        "[\\x00-\\x1f\\x7f\\u{9b}\\[\\]\"{}; .a-h1-8^xwm*-]{0,120}",
        (0usize..4, "[a-h1-8\\x1b\"\\]]{1,3}", 1000usize..40_000).prop_map(|(place, unit, times)| {
            let long = unit.repeat(times);
            match place {
                0 => format!("[Event \"{long}\"]\n\n1. e2e4 *"),
                1 => format!("[Result \"{long}\"]\n\n*"),
                2 => format!("1. {long} *"),
                _ => format!("1. e2e4 * {long}"),
            }
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_record_parses_and_prints_back_or_gives_a_readable_error(text in hostile_record()) {
        match text.parse::<GameRecord>() {
            Ok(record) => {
                let printed = record.to_string();
                let again: GameRecord = printed.parse().map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
                prop_assert_eq!(again, record);
            }
            Err(error) => {
                let message = with_causes(&error);
                prop_assert!(!message.chars().any(char::is_control), "raw control characters in {:?}", message);
                prop_assert!(message.chars().count() <= 400, "{} characters: {}", message.chars().count(), message);
            }
        }
    }
}

#[test]
fn the_valid_base_record_replays() {
    let record: GameRecord = VALID.parse().expect("valid");
    let game = record.replay().expect("replays");
    assert_eq!(game.moves().len(), 6);
}
