//! Seats: who may do what in a game, and a new game's seats and links.
//!
//! Creating a game makes a bearer token per human side and one for spectators: `qcs_` and 64
//! hex digits (256 bits from the operating system's generator). The store keeps only their
//! SHA-256; a presented token ([`Caller::token`]) is hashed and compared with each seat's hash
//! in constant time. Links carry tokens after `#`, which browsers never send, so they reach no
//! server log. Opening a link claims the seat: its token is replaced by a new one kept in that
//! browser, and the link stops working.
//!
//! A human side's every change needs its seat; a computer side's moves may be asked for by any
//! human seat of the game (by anyone who may watch, in a game between computers). Anyone may
//! watch a public game; a private one needs one of its tokens. The coach waits for the end of
//! a game between two people unless it was made casual ([`closed_reason`]). Games stored
//! before seats existed have none, and anyone may act in them, as before.

use std::net::IpAddr;

use qchess_core::Color;
use qchess_search::player::PlayerSpec;
use qchess_store::{ClockRow, GameSummary, NewSeat, Seat, Seating};
use rand::TryRng as _;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::GamesError;
use crate::new_game::NewGame;
use crate::session::now_ms;

/// How every seat token begins.
pub const TOKEN_PREFIX: &str = "qcs_";

/// A seat of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// White's player.
    White,
    /// Black's player.
    Black,
    /// A spectator: watches only.
    Spectator,
}

impl Role {
    /// Every role.
    pub const ALL: [Role; 3] = [Role::White, Role::Black, Role::Spectator];

    /// `white`, `black`, `spectator`.
    pub fn name(self) -> &'static str {
        match self {
            Role::White => "white",
            Role::Black => "black",
            Role::Spectator => "spectator",
        }
    }

    /// The role named `name`.
    pub fn parse(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|role| role.name() == name)
    }

    /// The side a player's seat plays.
    pub fn side(self) -> Option<Color> {
        match self {
            Role::White => Some(Color::White),
            Role::Black => Some(Color::Black),
            Role::Spectator => None,
        }
    }

    /// The seat of `side`'s player.
    pub fn of(side: Color) -> Role {
        match side {
            Color::White => Role::White,
            Color::Black => Role::Black,
        }
    }
}

/// A fresh seat token.
pub fn new_token() -> Result<String, GamesError> {
    let mut bytes = [0u8; 32];
    rand::rngs::SysRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| GamesError::Unavailable(format!("the system's random generator failed: {e}")))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("{TOKEN_PREFIX}{hex}"))
}

/// The SHA-256 of a token, in hex: all the store keeps of it.
pub fn token_hash(token: &str) -> String {
    Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

fn hex_bytes(hex: &str) -> Option<[u8; 32]> {
    let mut bytes = [0u8; 32];
    if hex.len() != 64 {
        return None;
    }
    for (index, byte) in bytes.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * index..2 * index + 2)?, 16).ok()?;
    }
    Some(bytes)
}

/// The seat of `seats` that `token` opens. Every seat is compared, each in constant time, so
/// the time taken says nothing about which bytes matched.
pub fn seat_of(seats: &[Seat], token: &str) -> Option<Role> {
    let digest = Sha256::digest(token.as_bytes());
    let mut found = None;
    for seat in seats {
        let Some(stored) = hex_bytes(&seat.token_hash) else { continue };
        if bool::from(digest.as_slice().ct_eq(&stored)) {
            found = Role::parse(&seat.role);
        }
    }
    found
}

/// The seats of a new game (one per human side, one for spectators) and their tokens.
pub(crate) fn seating(spec: &NewGame) -> Result<(Seating, Vec<(Role, String)>), GamesError> {
    let mut tokens = Vec::new();
    for (role, player) in
        [(Role::White, &spec.white), (Role::Black, &spec.black), (Role::Spectator, &PlayerSpec::Human)]
    {
        if *player == PlayerSpec::Human {
            tokens.push((role, new_token()?));
        }
    }
    let seats =
        tokens.iter().map(|(role, token)| NewSeat { role: role.name().to_owned(), token_hash: token_hash(token) });
    let seating = Seating {
        seated: true,
        public: spec.public,
        casual: spec.casual,
        seats: seats.collect(),
        clock: spec.clock.map(|control| ClockRow::new(control, now_ms())),
    };
    Ok((seating, tokens))
}

/// Adds the seats' tokens and links, and the spectators' link, to a new game's state.
pub(crate) fn add_links(state: &mut Value, id: &str, tokens: &[(Role, String)], base_url: &str) {
    let mut seats = serde_json::Map::new();
    for (role, token) in tokens {
        // After `#`: browsers never send it, so it reaches no server's log.
        let fragment = if *role == Role::Spectator { "watch" } else { "seat" };
        let entry = json!({ "token": token, "url": format!("{base_url}/?game={id}#{fragment}={token}") });
        if *role == Role::Spectator {
            state["spectator"] = entry;
        } else {
            seats.insert(role.name().to_owned(), entry);
        }
    }
    state["seats"] = Value::Object(seats);
}

/// Who sent a request: the seat token it carries (if any) and its address (rate limits count
/// by it).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// The seat token presented.
    pub token: Option<String>,
    /// The peer's address.
    pub address: Option<IpAddr>,
}

impl std::fmt::Debug for Caller {
    /// Never shows the token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Caller")
            .field("token", &self.token.as_ref().map(|_| "(hidden)"))
            .field("address", &self.address)
            .finish()
    }
}

/// What a request wants to do with a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// Read it.
    Watch,
    /// Change it for a side (move, resign, offer, answer...).
    ActFor(Color),
    /// Change it as any player (a game that is over).
    ActAny,
    /// Delete it.
    Delete,
}

/// Whether `side` is played by a person.
pub fn is_human(summary: &GameSummary, side: Color) -> bool {
    let player = match side {
        Color::White => &summary.white,
        Color::Black => &summary.black,
    };
    player == "human"
}

/// Whether a person plays either side.
pub fn has_human(summary: &GameSummary) -> bool {
    is_human(summary, Color::White) || is_human(summary, Color::Black)
}

/// The seat `caller` holds in game `summary` (with `seats`): `None` without a token; 403 for a
/// token that is no seat of this game.
pub fn role_of(summary: &GameSummary, seats: &[Seat], caller: &Caller) -> Result<Option<Role>, GamesError> {
    let Some(token) = caller.token.as_deref() else { return Ok(None) };
    if !summary.seated {
        return Ok(None);
    }
    seat_of(seats, token).map(Some).ok_or_else(|| {
        GamesError::Forbidden(format!(
                "the token sent is no seat of game {}: a seat link works for its own game only, and once opened in a browser only that browser's token does",
                summary.id
            ),
        )
    })
}

fn missing_token(summary: &GameSummary, what: &str) -> GamesError {
    GamesError::NoSeat(format!(
        "game {} has seats: {what} needs a seat token (X-Qchess-Seat: TOKEN, or Authorization: Bearer TOKEN), which the seat's link gives",
        summary.id
    ))
}

fn forbidden(message: String) -> GamesError {
    GamesError::Forbidden(message)
}

/// What acting for the side to move of `summary` needs (any player, once the game is over).
pub fn for_side_to_move(summary: &GameSummary) -> Want {
    match summary.to_move.as_str() {
        "white" => Want::ActFor(Color::White),
        "black" => Want::ActFor(Color::Black),
        _ => Want::ActAny,
    }
}

/// Why the coach does not answer in game `summary` now (`over`: whether the game has ended),
/// or `None` when it does: only a running game between two people, each at a seat, and not
/// made casual, keeps it closed.
pub fn closed_reason(summary: &GameSummary, over: bool) -> Option<String> {
    let between_people = summary.seated && is_human(summary, Color::White) && is_human(summary, Color::Black);
    (between_people && !summary.casual && !over).then(|| {
        format!(
            "fair play: the coach does not help anyone while game {} runs, a game between two people that was not made casual; it opens for everyone when the game ends",
            summary.id
        )
    })
}

/// Whether `role` may do `want` in game `summary`; the refusal says why.
pub fn authorize(summary: &GameSummary, role: Option<Role>, want: Want) -> Result<(), GamesError> {
    if !summary.seated {
        return Ok(());
    }
    let id = &summary.id;
    let may_watch = summary.public || role.is_some();
    match want {
        Want::Watch if may_watch => Ok(()),
        Want::Watch => Err(missing_token(summary, "watching this private game")),
        // A game between computers wrongs nobody: whoever may watch it may ask them to move.
        _ if !has_human(summary) && may_watch => Ok(()),
        Want::ActFor(side) => {
            let name = Role::of(side).name();
            match role {
                Some(Role::Spectator) => Err(forbidden(format!("spectators of game {id} watch; they cannot play"))),
                Some(seat) if is_human(summary, side) && seat != Role::of(side) => Err(forbidden(format!(
                    "this is {}'s seat, and only {name}'s seat plays for {name} in game {id}",
                    seat.name()
                ))),
                Some(_) => Ok(()),
                None => Err(missing_token(summary, &format!("playing for {name}"))),
            }
        }
        Want::ActAny => match role {
            Some(Role::Spectator) => Err(forbidden(format!("spectators of game {id} watch; they cannot play"))),
            Some(_) => Ok(()),
            None => Err(missing_token(summary, "changing it")),
        },
        Want::Delete => match role {
            None => Err(missing_token(summary, "deleting it")),
            Some(Role::Spectator) => Err(forbidden(format!("spectators of game {id} cannot delete it"))),
            Some(_) if summary.is_over() || !(is_human(summary, Color::White) && is_human(summary, Color::Black)) => {
                Ok(())
            }
            Some(_) => Err(forbidden(format!(
                "game {id} is between two people and not over: resign or agree a draw first, then delete it"
            ))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(role: &str, token: &str) -> Seat {
        Seat { game_id: "g".into(), role: role.into(), token_hash: token_hash(token), claimed_at: None, seen_at: None }
    }

    #[test]
    fn tokens_are_long_random_and_kept_as_hashes() {
        let (a, b) = (new_token().expect("a token"), new_token().expect("another"));
        assert_ne!(a, b);
        assert!(a.starts_with(TOKEN_PREFIX) && a.len() == TOKEN_PREFIX.len() + 64, "{a}");
        assert_eq!(token_hash(&a).len(), 64);
        assert_ne!(token_hash(&a), token_hash(&b));
        // The SHA-256 of "abc", as published in FIPS 180-2.
        assert_eq!(token_hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let seats = [seat("white", &a), seat("spectator", &b)];
        assert_eq!(seat_of(&seats, &a), Some(Role::White));
        assert_eq!(seat_of(&seats, &b), Some(Role::Spectator));
        assert_eq!(seat_of(&seats, &a[..a.len() - 1]), None, "truncated");
        assert_eq!(seat_of(&seats, &format!("{a}0")), None, "extended");
        assert_eq!(seat_of(&seats, ""), None);
        let damaged = Seat { token_hash: "zz".into(), ..seat("black", &a) };
        assert_eq!(seat_of(&[damaged], &a), None, "a damaged hash opens nothing");
    }

    fn game(white: &str, black: &str, public: bool, result: &str) -> GameSummary {
        GameSummary {
            id: "g".into(),
            origin: "web".into(),
            rules: "official".into(),
            white: white.into(),
            black: black.into(),
            backend: "local".into(),
            backend_label: "local".into(),
            seed: 0,
            owner: None,
            result: result.into(),
            to_move: "white".into(),
            ply: 0,
            revision: 1,
            archived: false,
            created_at: 0,
            updated_at: 0,
            pending: None,
            waiting_job: None,
            seated: true,
            public,
            casual: false,
        }
    }

    #[test]
    fn each_seat_may_do_what_its_side_may() {
        use Role::{Black, Spectator, White};
        let status = |summary: &GameSummary, role: Option<Role>, want: Want| match authorize(summary, role, want) {
            Ok(()) => 200,
            Err(GamesError::NoSeat(_)) => 401,
            Err(GamesError::Forbidden(_)) => 403,
            Err(other) => panic!("{other:?}"),
        };
        let friends = game("human", "human", true, "*");
        let white = Want::ActFor(Color::White);
        assert_eq!(status(&friends, Some(White), white), 200);
        assert_eq!(status(&friends, Some(Black), white), 403);
        assert_eq!(status(&friends, Some(Spectator), white), 403);
        assert_eq!(status(&friends, None, white), 401);
        assert_eq!(status(&friends, None, Want::Watch), 200, "public");
        assert_eq!(status(&friends, Some(Spectator), Want::ActAny), 403);
        assert_eq!(status(&friends, Some(Black), Want::Delete), 403, "not over");
        assert_eq!(status(&game("human", "human", true, "1-0"), Some(Black), Want::Delete), 200);
        let private = game("human", "ai:2", false, "*");
        assert_eq!(status(&private, None, Want::Watch), 401);
        assert_eq!(status(&private, Some(Spectator), Want::Watch), 200);
        assert_eq!(status(&private, Some(White), Want::ActFor(Color::Black)), 200, "its person asks the computer");
        assert_eq!(status(&private, Some(White), Want::Delete), 200, "one person against the computer");
        let computers = game("random", "greedy", true, "*");
        for role in [None, Some(Spectator)] {
            assert_eq!(status(&computers, role, white), 200, "{role:?}");
            assert_eq!(status(&computers, role, Want::Delete), 200, "{role:?}");
        }
        assert_eq!(status(&game("random", "greedy", false, "*"), None, white), 401, "a private one needs a token");
        let before_seats = GameSummary { seated: false, ..friends };
        assert_eq!(status(&before_seats, None, white), 200, "games from before seats stay open");
    }

    #[test]
    fn the_coach_waits_only_for_running_games_between_two_people_not_made_casual() {
        let friends = game("human", "human", true, "*");
        assert!(closed_reason(&friends, false).is_some_and(|reason| reason.contains("game g")));
        assert_eq!(closed_reason(&friends, true), None, "over");
        assert_eq!(closed_reason(&GameSummary { casual: true, ..friends.clone() }, false), None, "casual");
        assert_eq!(closed_reason(&GameSummary { seated: false, ..friends }, false), None, "from before seats");
        assert_eq!(closed_reason(&game("human", "ai:2", true, "*"), false), None, "against the computer");
        assert_eq!(closed_reason(&game("random", "greedy", true, "*"), false), None, "between computers");
    }

    #[test]
    fn callers_never_show_their_token() {
        let caller = Caller { token: Some("qcs_secret".into()), address: None };
        assert!(!format!("{caller:?}").contains("secret"));
    }
}
