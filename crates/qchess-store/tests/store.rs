//! The store against real databases: SQLite in a temporary file always, PostgreSQL when the
//! test script started one (`QCHESS_TEST_POSTGRES_URL`).

mod common;

use std::time::Duration;

use common::{stores, unique};
use qchess_core::Fen;
use qchess_engine::record::RecordInfo;
use qchess_engine::{Game, GameOptions};
use qchess_remote::JobResult;
use qchess_remote::journal::{JobEnd, JobJournal, JobKey, JobPhase, JobProgress, Recorded, Watch};
use qchess_remote::probabilities::Probabilities;
use qchess_sim::local_board::{LocalBoard, LocalBoardOptions};
use qchess_store::replay::{self, standing};
use qchess_store::schema::VERSION;
use qchess_store::{GameJournal, JobState, ListFilter, Location, NewEvent, NewGame, Store, StoreError};
use serde_json::json;

fn new_game(owner: &str, game: &Game) -> NewGame {
    let setup = replay::setup_record(game, &RecordInfo::default());
    let standing = standing(game, &setup);
    NewGame {
        id: None,
        origin: "test".into(),
        rules: game.rules().name().into(),
        white: "human".into(),
        black: "random".into(),
        backend: "local".into(),
        backend_label: "local".into(),
        seed: game.options().seed,
        setup,
        options: json!({}),
        owner: Some(owner.to_owned()),
        result: standing.result,
        to_move: standing.to_move,
        ply: standing.ply,
    }
}

fn local(seed: u64) -> LocalBoard {
    LocalBoard::with_options(qchess_core::Bitboard::EMPTY, LocalBoardOptions { seed, ..LocalBoardOptions::default() })
}

#[tokio::test]
async fn opening_twice_migrates_once() {
    let (dir, stores) = stores().await;
    for (name, store) in stores {
        assert_eq!(store.schema_version().await.expect("a version"), VERSION, "{name}");
    }
    // A second opening (another process, say) finds the schema in place.
    let again = Store::open(&Location::Sqlite(dir.path().join("games.db"))).await.expect("opens again");
    assert_eq!(again.schema_version().await.expect("a version"), VERSION);
    if let Some(location) = common::postgres() {
        let opened = futures_join(|| Store::open(&location)).await;
        assert!(opened.iter().all(Result::is_ok), "concurrent openings: {opened:?}");
    }
}

/// Processes that open a new SQLite store at once all open it: switching the file to WAL
/// finds the database locked while another opener holds it, and SQLite says so at once
/// rather than waiting its busy timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_new_sqlite_store_opened_by_several_at_once_opens_for_each() {
    let dir = tempfile::tempdir().expect("a directory");
    for round in 0..20 {
        let location = Location::Sqlite(dir.path().join(format!("new-{round}.db")));
        let opened = futures_join(|| Store::open(&location)).await;
        for store in &opened {
            let store = store.as_ref().unwrap_or_else(|e| panic!("round {round}: {e}"));
            assert_eq!(store.schema_version().await.expect("a version"), VERSION);
        }
    }
}

/// Opens the store four times at once.
async fn futures_join<F: Future<Output = Result<Store, StoreError>>>(
    open: impl Fn() -> F,
) -> Vec<Result<Store, StoreError>> {
    let (a, b, c, d) = tokio::join!(open(), open(), open(), open());
    vec![a, b, c, d]
}

#[tokio::test]
async fn a_game_is_kept_move_by_move_and_rebuilt_exactly() {
    let (_dir, stores) = stores().await;
    for (name, store) in stores {
        let owner = unique("owner");
        let options = GameOptions::with_seed(7);
        let mut game = Game::with_board(&Fen::start(), options, local(7)).expect("a game");
        let created = store.create_game(&new_game(&owner, &game)).await.expect("stored");
        assert_eq!((created.revision, created.ply, created.to_move.as_str()), (1, 0, "white"), "{name}");
        // Unforced measurements: the outcomes are drawn, and drawn again on rebuilding.
        let mut revision = created.revision;
        for input in ["b1^a3c3", "e7e6", "a3c3^b5", "d7d5", "b5^a3c3", "a7a6", "c3xd5", "mode:classical"] {
            let Ok((played, _)) = replay::apply(&mut game, input) else { continue };
            let event = NewEvent { input: input.to_owned(), played, comment: None };
            revision = store.append(&created.id, revision, &[event], &standing(&game, "")).await.expect("appended");
        }
        let stored = store.game(&created.id).await.expect("read back");
        assert_eq!(stored.summary.revision, revision);
        assert_eq!(stored.summary.ply, game.ply());
        let rebuilt = replay::rebuild(&stored, local(7)).expect("rebuilds");
        assert_eq!(
            qchess_engine::record::GameRecord::from_game(&rebuilt, &RecordInfo::default()),
            qchess_engine::record::GameRecord::from_game(&game, &RecordInfo::default()),
            "{name}"
        );
        assert_eq!(rebuilt.position().to_fen(), game.position().to_fen());
        // A change against an old revision is refused with the current one.
        let stale = store.append(&created.id, revision - 1, &[], &standing(&game, "")).await;
        assert!(matches!(stale, Err(StoreError::Conflict { current, .. }) if current == revision), "{name}: {stale:?}");
        // Taking two events back.
        let kept = stored.events.len() as u32 - 2;
        let revision = store.truncate(&created.id, revision, kept, &standing(&game, "")).await.expect("truncated");
        assert_eq!(store.game(&created.id).await.expect("read").events.len() as u32, kept);
        assert_eq!(store.revision(&created.id).await.expect("revision"), revision);
        // Listing by owner, archiving, deleting.
        let listed =
            store.list(&ListFilter { owner: Some(owner.clone()), ..ListFilter::default() }).await.expect("list");
        assert_eq!(listed.iter().map(|g| g.id.as_str()).collect::<Vec<_>>(), [created.id.as_str()]);
        assert_eq!(listed[0].status(), format!("{} to move", listed[0].to_move));
        store.set_archived(&created.id, true).await.expect("archived");
        let filter = ListFilter { owner: Some(owner.clone()), ..ListFilter::default() };
        assert!(store.list(&filter).await.expect("list").is_empty(), "archived games are not listed by default");
        let with_archived = ListFilter { archived: true, ..filter };
        assert_eq!(store.list(&with_archived).await.expect("list").len(), 1);
        assert!(store.delete_game(&created.id).await.expect("deleted"));
        assert!(matches!(store.game(&created.id).await, Err(StoreError::UnknownGame(_))));
        assert!(!store.delete_game(&created.id).await.expect("nothing to delete"));
    }
}

#[tokio::test]
async fn concurrent_writers_at_one_revision_have_one_winner() {
    let (_dir, stores) = stores().await;
    for (name, store) in stores {
        let game = Game::new(&Fen::start(), GameOptions::default()).expect("a game");
        let id = store.create_game(&new_game(&unique("owner"), &game)).await.expect("stored").id;
        for round in 0..5 {
            let revision = store.revision(&id).await.expect("revision");
            let attempts = (0..8).map(|writer| {
                let store = store.clone();
                let id = id.clone();
                let standing = standing(&game, "");
                tokio::spawn(async move {
                    let event = NewEvent { input: format!("w{writer}"), played: format!("w{writer}"), comment: None };
                    store.append(&id, revision, &[event], &standing).await
                })
            });
            let mut wins = 0;
            for attempt in attempts {
                match attempt.await.expect("joins") {
                    Ok(_) => wins += 1,
                    Err(StoreError::Conflict { .. }) => {}
                    Err(other) => panic!("{name}: {other}"),
                }
            }
            assert_eq!(wins, 1, "{name}, round {round}");
        }
        assert_eq!(store.game(&id).await.expect("read").events.len(), 5, "{name}");
    }
}

#[tokio::test]
async fn a_waiting_move_blocks_others_and_its_lease_passes_on() {
    let (_dir, stores) = stores().await;
    for (name, store) in stores {
        let game = Game::new(&Fen::start(), GameOptions::default()).expect("a game");
        let id = store.create_game(&new_game(&unique("owner"), &game)).await.expect("stored").id;
        let revision = store.revision(&id).await.expect("revision");
        let lease = Duration::from_millis(300);
        let (claim, after) = store.claim(&id, revision, "b1^a3c3", "instance-a", lease).await.expect("claimed");
        assert_eq!((claim.seq, claim.input.as_str()), (0, "b1^a3c3"));
        // Another move, or a second claim, is refused while it waits.
        let second = store.claim(&id, after, "e2e4", "instance-b", lease).await;
        assert!(matches!(second, Err(StoreError::MoveWaiting { .. })), "{name}: {second:?}");
        let append = store.append(&id, after, &[], &standing(&game, "")).await;
        assert!(matches!(append, Err(StoreError::MoveWaiting { .. })), "{name}: {append:?}");
        assert!(store.expired_pending("test").await.expect("read").iter().all(|p| p.game_id != id));
        // The holder renews; then it "dies": the lease runs out and B takes over, once.
        assert!(store.renew_leases("instance-a", lease).await.expect("renewed") >= 1);
        tokio::time::sleep(lease + Duration::from_millis(50)).await;
        let expired: Vec<_> =
            store.expired_pending("test").await.expect("read").into_iter().filter(|p| p.game_id == id).collect();
        assert_eq!(expired.len(), 1, "{name}");
        let taken = store.take_over(&expired[0], "instance-b", lease).await.expect("taken").expect("B holds it");
        assert_eq!((taken.holder.as_deref(), taken.attempts), (Some("instance-b"), 2));
        assert!(store.take_over(&expired[0], "instance-c", lease).await.expect("refused").is_none(), "taken once");
        // B finishes it with the claim's token; the token is then spent.
        let event = NewEvent { input: "b1^a3c3".into(), played: "b1^a3c3".into(), comment: None };
        let done = store.finish(&id, &taken.token, &event, &standing(&game, "")).await.expect("finished");
        assert!(done > after);
        assert!(matches!(
            store.finish(&id, &taken.token, &event, &standing(&game, "")).await,
            Err(StoreError::ClaimLost(_))
        ));
        assert_eq!(store.game(&id).await.expect("read").events.len(), 1);
        // A claim given up leaves the game as it was; a cancel needs no token.
        let (claim, _) = store.claim(&id, done, "e7e5", "instance-a", lease).await.expect("claimed");
        store.abandon(&id, &claim.token).await.expect("abandoned");
        let (_, _) = store
            .claim(&id, store.revision(&id).await.expect("rev"), "e7e6", "instance-a", lease)
            .await
            .expect("claimed");
        let canceled = store.cancel_pending(&id).await.expect("canceled").expect("there was one");
        assert_eq!(canceled.input, "e7e6");
        assert!(store.pending(&id).await.expect("read").is_none());
        assert_eq!(store.game(&id).await.expect("read").events.len(), 1, "{name}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_journal_keeps_each_circuit_to_one_live_job() {
    let (_dir, stores) = stores().await;
    for (name, store) in stores {
        let game = Game::new(&Fen::start(), GameOptions::default()).expect("a game");
        let id = store.create_game(&new_game(&unique("owner"), &game)).await.expect("stored").id;
        let revision = store.revision(&id).await.expect("revision");
        let (claim, _) = store.claim(&id, revision, "b1^a3c3", "me", Duration::from_secs(30)).await.expect("claimed");
        let handle = tokio::runtime::Handle::current();
        let (journal_store, game_id, token) = (store.clone(), id.clone(), claim.token.clone());
        // The journal blocks: it runs on a plain thread, as a board's does.
        let checked = tokio::task::spawn_blocking(move || {
            let mut journal = GameJournal::new(journal_store, handle, &game_id, "simulator").holding(Some(token));
            let key = JobKey { circuit: "00ff".into(), shots: 100 };
            assert_eq!(journal.find(&key).expect("asks"), None);
            // The provider session the game's jobs go into is kept with the game.
            assert_eq!(journal.session().expect("asks"), None);
            journal.session_opened("session-1").expect("kept");
            journal.session_opened("session-2").expect("kept");
            assert_eq!(journal.session().expect("asks").as_deref(), Some("session-2"));
            assert!(!journal.game_over().expect("asks"), "the game goes on");
            let name = journal.reserve(&key).expect("reserved");
            assert_eq!(journal.find(&key).expect("asks"), Some(Recorded::Reserved { name: name.clone() }));
            // A second live job for the circuit is refused by the database itself.
            assert!(journal.reserve(&key).is_err(), "a circuit has one live job");
            journal.submitted(&key, &name, "job-1").expect("recorded");
            assert_eq!(journal.find(&key).expect("asks"), Some(Recorded::Submitted { job_id: "job-1".into() }));
            let queued = JobProgress {
                phase: JobPhase::Queued,
                status: "ready".into(),
                queue_position: Some(4),
                predicted_wait_ms: None,
                message: None,
            };
            assert_eq!(journal.progress(&key, "job-1", &queued).expect("heard"), Watch::Continue);
            let result = JobResult {
                job_id: "job-1".into(),
                shots: 100,
                probabilities: Probabilities::new(2, vec![(1, 0.25), (2, 0.75)]).expect("valid"),
            };
            journal.completed(&key, &result).expect("stored");
            assert_eq!(journal.find(&key).expect("asks"), Some(Recorded::Completed(result)));
            // A lost job is not submitted again unless asked to.
            let other = JobKey { circuit: "0a0a".into(), shots: 100 };
            let name = journal.reserve(&other).expect("reserved");
            journal.submitted(&other, &name, "job-2").expect("recorded");
            journal.ended(&other, "job-2", &JobEnd::Lost).expect("recorded");
            let refused = journal.find(&other).expect_err("lost").to_string();
            assert!(refused.contains("was lost") && refused.contains("--resubmit"), "{refused}");
            let mut resubmitting = journal.clone().resubmitting(true);
            assert_eq!(resubmitting.find(&other).expect("asks"), None);
            journal
        })
        .await
        .expect("the journal thread");
        let jobs = store.jobs(&id).await.expect("jobs");
        assert_eq!(jobs.iter().map(|j| j.state).collect::<Vec<_>>(), [JobState::Completed, JobState::Lost], "{name}");
        assert_eq!(jobs[0].queue_position, Some(4));
        // Once the move is canceled, a wait hears it should stop.
        store.cancel_pending(&id).await.expect("canceled");
        let stop = tokio::task::spawn_blocking(move || {
            let mut journal = checked;
            let key = JobKey { circuit: "00ff".into(), shots: 100 };
            let progress = JobProgress {
                phase: JobPhase::Running,
                status: "started".into(),
                queue_position: None,
                predicted_wait_ms: None,
                message: None,
            };
            journal.progress(&key, "job-1", &progress).expect("heard")
        })
        .await
        .expect("the journal thread");
        assert!(matches!(stop, Watch::Stop(_)), "{name}: {stop:?}");
    }
}

/// Transactions that read before they write (taking a waiting move back) never fail for a
/// writer that came in between: on SQLite they take the write lock first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_claims_and_cancels_never_fail_with_a_locked_database() {
    let (_dir, stores) = stores().await;
    for (name, store) in stores {
        let game = Game::new(&Fen::start(), GameOptions::default()).expect("a game");
        let mut ids = Vec::new();
        for _ in 0..8 {
            ids.push(store.create_game(&new_game(&unique("owner"), &game)).await.expect("stored").id);
        }
        let tasks: Vec<_> = ids
            .into_iter()
            .map(|id| {
                let store = store.clone();
                tokio::spawn(async move {
                    for _ in 0..25 {
                        let revision = store.revision(&id).await?;
                        store.claim(&id, revision, "e2e4", "me", Duration::from_secs(30)).await?;
                        store.cancel_pending(&id).await?;
                    }
                    Ok::<(), StoreError>(())
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("joins").unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
