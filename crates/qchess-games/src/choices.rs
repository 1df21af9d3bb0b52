//! What a new game may choose: the engine's rule sets and the computer players of
//! `qchess-search`, each with a line for the board's choosers.

use qchess_engine::RuleSet;
use qchess_search::player::{MAX_LEVEL, PlayerSpec};

use crate::error::GamesError;

/// A line per rule set the engine may offer; a rule set missing here is shown by its name.
const RULE_DESCRIPTIONS: [(&str, &str); 4] = [
    ("official", "Official Quantum Chess: no check; win by capturing the king with certainty"),
    ("classical", "FIDE chess on the same pipeline: no quantum moves, check and checkmate"),
    ("observer", "Observer effect: moves measure what they touch"),
    ("checkmate", "Quantum check and checkmate"),
];

/// The chooser's line for `rules`.
pub fn rule_description(rules: RuleSet) -> &'static str {
    RULE_DESCRIPTIONS.iter().find(|(name, _)| *name == rules.name()).map_or(rules.name(), |(_, line)| line)
}

/// The rule set `text` names.
pub fn parse_rules(text: &str) -> Result<RuleSet, GamesError> {
    text.trim().parse().map_err(|_| {
        let known: Vec<&str> = RuleSet::ALL.iter().map(|r| r.name()).collect();
        GamesError::Invalid(format!("rules: `{}` is not a rule set; choose one of {}", text.trim(), known.join(", ")))
    })
}

/// The player `text` names, among those a web game may have: a person, or a computer player
/// that runs in the server (never an external engine, which would run a command on the server).
pub fn parse_player(text: &str) -> Result<PlayerSpec, String> {
    let known = || format!("choose human, random, greedy or ai:1 to ai:{MAX_LEVEL}");
    match text.trim().parse::<PlayerSpec>() {
        Ok(PlayerSpec::Uqci(_)) => {
            Err(format!("`{}`: external engines cannot be started from the web; {}", text.trim(), known()))
        }
        Ok(spec) => Ok(spec),
        Err(_) => Err(format!("`{}` is not a player; {}", text.trim(), known())),
    }
}

/// Every player a web game may have, with a line each.
pub fn players() -> Vec<(String, String)> {
    let mut players = vec![
        ("human".to_owned(), "a person at the board".to_owned()),
        ("random".to_owned(), "the computer: a random legal move".to_owned()),
        ("greedy".to_owned(), "the computer: the best expected material after one move".to_owned()),
    ];
    for level in 1..=MAX_LEVEL {
        players.push((format!("ai:{level}"), format!("the computer: searches {level} plies deep")));
    }
    players
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn web_players_never_start_commands() {
        assert_eq!(parse_player("ai:3"), Ok(PlayerSpec::Level(3)));
        assert_eq!(parse_player(" greedy "), Ok(PlayerSpec::Greedy));
        let error = parse_player("uqci:rm -rf /").expect_err("no commands");
        assert!(error.contains("external engines cannot be started"), "{error}");
        assert!(parse_player("ai:99").expect_err("no such level").contains("is not a player"));
        for (name, _) in players() {
            assert_eq!(parse_player(&name).expect(&name).to_string(), name);
        }
    }

    #[test]
    fn every_rule_set_has_a_line() {
        for rules in RuleSet::ALL {
            assert_ne!(rule_description(rules), rules.name(), "{rules} needs a line in RULE_DESCRIPTIONS");
            assert_eq!(parse_rules(rules.name()).expect("known"), rules);
        }
        assert!(parse_rules("atomic").expect_err("unknown").to_string().contains("choose one of official"));
    }
}
