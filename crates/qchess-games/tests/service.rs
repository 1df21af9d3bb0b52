//! The game service through its typed API, with no HTTP in between: seats and who may act,
//! a move that lost to another, a takeback asked of the opponent, the events a watcher hears,
//! and the coach kept from a running game between two people, on an in-memory store.

use std::sync::Arc;
use std::time::Duration;

use qchess_games::{Answer, Caller, GameEvent, Games, GamesConfig, GamesError, NewGameBody, OfferAction, Reply};
use serde_json::{Value, json};
use tokio::sync::mpsc::Receiver;

async fn service() -> Arc<Games> {
    let store = qchess_store::Store::open(&qchess_store::Location::Memory).await.expect("a store");
    Arc::new(Games::new(store, tokio::runtime::Handle::current(), GamesConfig::default()))
}

async fn create(games: &Games, id: &str, body: Value) -> Value {
    let body: NewGameBody = serde_json::from_value(body).expect("a new game");
    games.create(id.to_owned(), body, &Caller::default(), "http://chess.example").await.expect("created")
}

/// The caller holding `side`'s seat of a new game.
fn seat(created: &Value, side: &str) -> Caller {
    let token = created["seats"][side]["token"].as_str().unwrap_or_else(|| panic!("{side} has a seat: {created}"));
    Caller { token: Some(token.to_owned()), address: None }
}

/// The next state a watcher hears (presence aside), or the event that ended the stream.
async fn next_state(events: &mut Receiver<GameEvent>) -> GameEvent {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(10), events.recv()).await.expect("an event in time");
        match event.expect("the stream goes on") {
            GameEvent::Presence(_) => continue,
            other => return other,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_seat_acts_for_its_side_and_a_stale_move_loses() {
    let games = service().await;
    let created = create(&games, "friends", json!({ "white": "human", "black": "human", "seed": 1 })).await;
    let url = created["seats"]["white"]["url"].as_str().expect("a link");
    assert!(url.starts_with("http://chess.example/?game=friends#seat=qcs_"), "{url}");
    let (white, black) = (seat(&created, "white"), seat(&created, "black"));
    let nobody = Caller::default();
    let refused = games.play("friends", &nobody, "e2e4".into(), None).await;
    assert!(matches!(refused, Err(GamesError::NoSeat(_))), "{refused:?}");
    let refused = games.play("friends", &black, "e2e4".into(), None).await;
    assert!(matches!(refused, Err(GamesError::Forbidden(_))), "{refused:?}");
    let Answer::Done(state) = games.play("friends", &white, "e2e4".into(), Some(0)).await.expect("White moves") else {
        panic!("a move on the local board is done at once");
    };
    assert_eq!((state["ply"].as_u64(), state["you"].as_str()), (Some(1), Some("white")));
    // Black answers a position the game has left: the answer carries the game as it is.
    match games.play("friends", &black, "e7e5".into(), Some(0)).await {
        Err(GamesError::Conflict { state: Some(now), .. }) => assert_eq!(now["ply"], 1),
        other => panic!("{other:?}"),
    }
    // Between two people a takeback is asked of the opponent, who may decline it.
    let asked = games.takeback("friends", &white, OfferAction::Offer, Some(1), None).await.expect("asked");
    assert!(matches!(&asked, Answer::Pending(state) if state["offers"][0]["kind"] == "takeback"), "{asked:?}");
    let declined = games.takeback("friends", &black, OfferAction::Answer(Reply::Decline), None, None).await;
    assert_eq!(declined.expect("declined").state()["ply"], 1);
    let resigned = games.resign("friends", &black, None).await.expect("Black resigns");
    assert_eq!(resigned["result"], "1-0");
    let missing = games.state("nowhere", &nobody).await;
    assert!(matches!(missing, Err(GamesError::NotFound(_))), "{missing:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_hears_each_change_then_the_end_of_the_game() {
    let games = service().await;
    let _background = games.start_background();
    let created = create(&games, "watched", json!({ "white": "human", "black": "random", "seed": 2 })).await;
    let white = seat(&created, "white");
    let mut events = games.watch("watched", Caller::default(), None).await.expect("a public game is watched");
    let GameEvent::State { revision: first, .. } = next_state(&mut events).await else { panic!("the state first") };
    games.play("watched", &white, "e2e4".into(), None).await.expect("White moves");
    let GameEvent::State { revision, state } = next_state(&mut events).await else { panic!("the move's state") };
    assert!(revision > first && state["ply"] == 1, "{revision} after {first}: {state}");
    games.delete("watched", &white).await.expect("White deletes a game against the computer");
    assert!(matches!(next_state(&mut events).await, GameEvent::Gone(_)));
    // Once the service closes, new streams end at once.
    let created = create(&games, "closing", json!({})).await;
    assert_eq!(created["id"], "closing");
    games.close();
    let mut closed = games.watch("closing", Caller::default(), None).await.expect("watched");
    let ended = tokio::time::timeout(Duration::from_secs(10), closed.recv()).await.expect("ends in time");
    assert_eq!(ended, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_coach_waits_for_the_end_of_a_game_between_two_people_unless_it_is_casual() {
    let games = service().await;
    let limits = qchess_games::coach::limits(None, Some(1)).expect("limits");
    let created = create(&games, "rated", json!({ "white": "human", "black": "human", "seed": 1 })).await;
    let spectator = Caller { token: created["spectator"]["token"].as_str().map(str::to_owned), address: None };
    for caller in [seat(&created, "white"), seat(&created, "black"), spectator, Caller::default()] {
        let refused = games.hint("rated", &caller, limits).await;
        assert!(
            matches!(&refused, Err(GamesError::CoachClosed(reason)) if reason.contains("game rated")),
            "{refused:?}"
        );
    }
    games.resign("rated", &seat(&created, "black"), None).await.expect("Black resigns");
    let review = games.review("rated", &Caller::default(), limits).await.expect("open once over");
    assert_eq!(review["ply"], 0);
    let casual = json!({ "white": "human", "black": "human", "seed": 1, "casual": true });
    let created = create(&games, "casual", casual).await;
    assert_eq!((&created["casual"], &created["coach_closed"]), (&json!(true), &Value::Null), "{created}");
    let hint = games.hint("casual", &seat(&created, "white"), limits).await.expect("a casual game keeps the coach");
    assert_eq!(hint["over"], false);
}
