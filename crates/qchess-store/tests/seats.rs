//! Seats, clocks and offers against real databases (SQLite always, PostgreSQL when the test
//! script started one), and a store of schema version 1 migrated with its games to the newest.

mod common;

use common::{stores, unique};
use qchess_core::Color;
use qchess_store::schema::{MIGRATIONS, VERSION};
use qchess_store::{
    Change, ClockRow, Location, NewEvent, NewGame, NewSeat, Offer, Seating, Standing, Store, StoreError,
};
use serde_json::json;
use sqlx::Connection as _;

fn new_game(owner: &str) -> NewGame {
    NewGame {
        id: None,
        origin: "web".into(),
        rules: "official".into(),
        white: "human".into(),
        black: "human".into(),
        backend: "local".into(),
        backend_label: "local".into(),
        seed: 3,
        setup: "[Result \"*\"]\n\n*\n".into(),
        options: json!({}),
        owner: Some(owner.to_owned()),
        result: "*".into(),
        to_move: "white".into(),
        ply: 0,
    }
}

fn seat(role: &str, hash: &str) -> NewSeat {
    NewSeat { role: role.into(), token_hash: hash.into() }
}

#[tokio::test]
async fn seats_clocks_and_offers_change_with_the_game_at_once() {
    let (_dir, stores) = stores().await;
    for (name, store) in stores {
        let clock = ClockRow::new("1+2".parse().expect("control"), 1_000);
        let seating = Seating {
            seated: true,
            public: false,
            casual: true,
            seats: vec![seat("white", "aa"), seat("black", "bb"), seat("spectator", "cc")],
            clock: Some(clock.clone()),
        };
        let game = store.create_seated_game(&new_game(&unique("owner")), &seating).await.expect("stored");
        let id = game.id.clone();
        assert!(game.seated && !game.public && game.casual, "{name}");
        let plain = Seating { seated: true, ..Seating::default() };
        let plain = store.create_seated_game(&new_game(&unique("owner")), &plain).await.expect("stored");
        assert!(!plain.casual, "{name}: a game is not casual unless made so");
        let seats = store.seats(&id).await.expect("seats");
        let roles: Vec<(&str, &str)> = seats.iter().map(|s| (s.role.as_str(), s.token_hash.as_str())).collect();
        assert_eq!(roles, [("black", "bb"), ("spectator", "cc"), ("white", "aa")], "{name}");
        assert_eq!(store.clock(&id).await.expect("a clock"), Some(clock.clone()), "{name}");
        // A claim replaces the hash once; the old one claims nothing more.
        assert!(store.claim_seat(&id, "black", "bb", "dd").await.expect("claims"), "{name}");
        assert!(!store.claim_seat(&id, "black", "bb", "ee").await.expect("answers"), "{name}");
        let black = store.seats(&id).await.expect("seats").into_iter().find(|s| s.role == "black").expect("black");
        assert_eq!((black.token_hash.as_str(), black.claimed_at.is_some()), ("dd", true), "{name}");
        store.touch_seats(&[(id.clone(), "white".into())]).await.expect("seen");
        store.mark_seat_away(&id, "black").await.expect("away");
        let seen = store.seats_of(std::slice::from_ref(&id)).await.expect("seats");
        assert!(seen.iter().find(|s| s.role == "white").and_then(|s| s.seen_at).is_some_and(|at| at > 1), "{name}");
        assert_eq!(seen.iter().find(|s| s.role == "black").and_then(|s| s.seen_at), Some(1), "{name}");

        // A move with its clock and an offer, at once.
        let mut after = clock.clone();
        after.after_move(Color::White, Some(Color::Black), 5_000);
        let offer = Offer { kind: "draw".into(), side: "white".into(), plies: 0, ply: 1, until_ply: 1, made_at: 5_000 };
        let standing = Standing { result: "*".into(), to_move: "black".into(), ply: 1, record: "1. e2e4 *".into() };
        let change = Change {
            events: vec![NewEvent {
                input: "e2e4".into(),
                played: "e2e4".into(),
                comment: Some("[%clk 0:01:02]".into()),
            }],
            standing: Some(standing),
            clock: Some(after.clone()),
            offers: Some(vec![offer.clone()]),
            keep: None,
        };
        let revision = store.change(&id, game.revision, &change).await.expect("changed");
        assert_eq!(revision, game.revision + 1, "{name}");
        assert_eq!(store.clock(&id).await.expect("a clock"), Some(after.clone()), "{name}");
        assert_eq!(store.offers(&id).await.expect("offers"), [offer], "{name}");
        let due = store.due_clocks(1000).await.expect("due");
        assert!(due.contains(&(id.clone(), 65_000)), "{name}: Black's deadline: {due:?}");
        // A change at the old revision loses whole: clocks and offers stay.
        let stale = Change { clock: Some(clock.clone()), offers: Some(Vec::new()), ..Change::default() };
        let lost = store.change(&id, game.revision, &stale).await.expect_err("stale");
        assert!(matches!(lost, StoreError::Conflict { .. }), "{name}: {lost}");
        assert_eq!(store.clock(&id).await.expect("a clock"), Some(after), "{name}");
        assert_eq!(store.offers(&id).await.expect("offers").len(), 1, "{name}");
        // Taking the move back at once with the clocks stopped and the offers gone.
        let mut stopped = clock.clone();
        stopped.stop(9_000);
        let back =
            Change { keep: Some(0), clock: Some(stopped.clone()), offers: Some(Vec::new()), ..Change::default() };
        store.change(&id, revision, &back).await.expect("taken back");
        let stored = store.game(&id).await.expect("the game");
        assert!(stored.events.is_empty(), "{name}");
        assert!(store.offers(&id).await.expect("offers").is_empty(), "{name}");
        assert!(!store.due_clocks(1000).await.expect("due").iter().any(|(game, _)| *game == id), "{name}");
        assert!(store.delete_game(&id).await.expect("deleted"), "{name}");
        assert!(store.seats(&id).await.expect("seats").is_empty(), "{name}");
        assert_eq!(store.clock(&id).await.expect("no clock"), None, "{name}");
    }
}

#[tokio::test]
async fn a_version_1_store_is_migrated_and_its_games_stay_open() {
    let dir = tempfile::tempdir().expect("a directory");
    let path = dir.path().join("games.db");
    sqlx::any::install_default_drivers();
    {
        // The store as qchess wrote it before seats: version 1, with a game.
        let url = format!("sqlite:{}?mode=rwc", path.display());
        let mut connection = sqlx::AnyConnection::connect(&url).await.expect("SQLite");
        use sqlx::Executor as _;
        connection.execute("CREATE TABLE qchess_schema (version BIGINT NOT NULL)").await.expect("the version table");
        for statement in MIGRATIONS[0] {
            connection.execute(*statement).await.expect("version 1");
        }
        connection.execute("INSERT INTO qchess_schema (version) VALUES (1)").await.expect("version 1");
        connection
            .execute(
                "INSERT INTO games (id, origin, rules, white, black, backend, backend_label, seed, setup, record, \
                 options, owner, result, to_move, ply, revision, archived, created_at, updated_at) VALUES \
                 ('old', 'web', 'official', 'human', 'human', 'local', 'local', 1, '*', '*', '{}', NULL, '*', \
                 'white', 0, 1, 0, 0, 0)",
            )
            .await
            .expect("a game");
        connection.close().await.expect("closed");
    }
    let store = Store::open(&Location::Sqlite(path)).await.expect("opens and migrates");
    assert_eq!(store.schema_version().await.expect("a version"), VERSION);
    assert_eq!(VERSION, 4);
    let old = store.summary("old").await.expect("the old game");
    assert!(!old.seated && old.public, "a game from before seats is open, as it was");
    assert!(!old.casual, "a game from before the casual setting is not casual");
    assert_eq!(store.provider_session("old").await.expect("read"), None, "nor does it keep a provider session");
    assert!(store.seats("old").await.expect("seats").is_empty());
    assert_eq!(store.clock("old").await.expect("no clock"), None);
}
