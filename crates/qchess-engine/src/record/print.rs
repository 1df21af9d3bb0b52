//! Writing a record so that it parses back to the same record.

use std::fmt;

use qchess_core::{Color, Fen};

use super::GameRecord;

/// Movetext lines are wrapped before this many characters.
const LINE_WIDTH: usize = 80;

impl GameRecord {
    /// The side and move number of the first move, read from the `FEN` tag (the standard start
    /// when there is none or it does not parse).
    fn first_move(&self) -> (Color, u32) {
        let fen = self.tag("FEN").and_then(|text| text.parse::<Fen>().ok()).unwrap_or_default();
        (fen.turn, fen.fullmove_number.max(1))
    }

    /// The words of the movetext: numbers, moves, comment words and the result.
    fn movetext_words(&self) -> Vec<String> {
        let mut words = Vec::new();
        let push_comment = |words: &mut Vec<String>, comment: &Option<String>| {
            if let Some(text) = comment {
                words.push("{".to_owned());
                words.extend(text.split_whitespace().map(str::to_owned));
                words.push("}".to_owned());
            }
        };
        push_comment(&mut words, &self.comment);
        let (first_side, first_number) = self.first_move();
        let mut need_number = true;
        let push_changes = |words: &mut Vec<String>, ply: usize| {
            let changes = self.mode_changes.iter().filter(|change| change.before_ply == ply);
            let before = words.len();
            words.extend(changes.map(|change| change.to_string()));
            words.len() > before
        };
        for (ply, mv) in self.moves.iter().enumerate() {
            if push_changes(&mut words, ply) {
                need_number = true;
            }
            let offset = ply + usize::from(first_side == Color::Black);
            let number = u64::from(first_number) + (offset / 2) as u64;
            let white = offset.is_multiple_of(2);
            if white {
                words.push(format!("{number}."));
            } else if need_number {
                words.push(format!("{number}..."));
            }
            words.push(mv.notation.to_string());
            push_comment(&mut words, &mv.comment);
            need_number = mv.comment.is_some();
        }
        push_changes(&mut words, self.moves.len());
        words.push(self.result.to_string());
        words
    }
}

/// Tags, a blank line, then the movetext wrapped at 80 columns.
impl fmt::Display for GameRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for tag in &self.tags {
            let value = tag.value.replace('\\', "\\\\").replace('"', "\\\"");
            writeln!(f, "[{} \"{value}\"]", tag.name)?;
        }
        if !self.tags.is_empty() {
            writeln!(f)?;
        }
        let mut line = String::new();
        for word in self.movetext_words() {
            if !line.is_empty() && line.chars().count() + 1 + word.chars().count() >= LINE_WIDTH {
                writeln!(f, "{line}")?;
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&word);
        }
        writeln!(f, "{line}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RecordedMove, Tag};
    use super::*;
    use crate::GameResult;

    fn record(tags: &[(&str, &str)], moves: &[&str]) -> GameRecord {
        GameRecord {
            tags: tags.iter().map(|(n, v)| Tag { name: (*n).to_owned(), value: (*v).to_owned() }).collect(),
            comment: None,
            moves: moves
                .iter()
                .map(|m| RecordedMove { notation: m.parse().unwrap_or_else(|e| panic!("{m}: {e}")), comment: None })
                .collect(),
            mode_changes: Vec::new(),
            result: GameResult::Ongoing,
        }
    }

    #[test]
    fn numbers_follow_the_start_position() {
        let text = record(&[("Event", "x")], &["b1^a3c3", "g8f6", "a3c3^b5"]).to_string();
        assert_eq!(text, "[Event \"x\"]\n\n1. b1^a3c3 g8f6 2. a3c3^b5 *\n");
        let black_first = record(&[("FEN", "4k3/8/8/8/8/8/8/4K3 b - - 0 12")], &["e8d8", "e1d1"]);
        assert!(black_first.to_string().ends_with("\n12... e8d8 13. e1d1 *\n"), "{black_first}");
    }

    #[test]
    fn comments_restate_black_move_numbers_and_long_games_wrap() {
        let mut game = record(&[], &["e2e4", "e7e5"]);
        game.moves[0].comment = Some("a \"quoted\" note".to_owned());
        assert_eq!(game.to_string(), "1. e2e4 { a \"quoted\" note } 1... e7e5 *\n");
        let many: Vec<&str> = ["g1f3", "g8f6", "f3g1", "f6g8"].iter().copied().cycle().take(60).collect();
        let text = record(&[], &many).to_string();
        assert!(text.lines().all(|l| l.chars().count() < LINE_WIDTH), "{text}");
        assert!(text.lines().count() > 5);
        assert_eq!(text.parse::<GameRecord>().map(|r| r.moves.len()), Ok(60));
    }

    #[test]
    fn tag_values_are_escaped() {
        let text = record(&[("Event", "say \"hi\" \\o/")], &[]).to_string();
        assert_eq!(text, "[Event \"say \\\"hi\\\" \\\\o/\"]\n\n*\n");
        assert_eq!(
            text.parse::<GameRecord>().map(|r| r.tag("Event").map(str::to_owned)),
            Ok(Some("say \"hi\" \\o/".to_owned()))
        );
    }
}
