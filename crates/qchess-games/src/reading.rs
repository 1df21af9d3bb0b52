//! What one may read of games without changing them: the service's options, the stored games,
//! and of one game its legal moves, a square's analysis, its record and its circuit.

use qchess_core::Square;
use qchess_qasm::export::Format;
use serde_json::{Value, json};

use crate::choices::{players, rule_description};
use crate::error::{GamesError, store_error};
use crate::new_game::ListGames;
use crate::seats::{Caller, Want};
use crate::service::Games;
use crate::view;

impl Games {
    /// What a new game may choose (rule sets, players, backends) and the service's limits.
    pub fn options(&self) -> Value {
        let config = self.config();
        let mut backends = vec![json!({ "id": "local", "label": "local (exact simulator)", "exact": true })];
        if let Some(remote) = &config.remote {
            backends.push(json!({ "id": "remote", "label": remote.label, "exact": false }));
        }
        let rules: Vec<Value> = qchess_engine::RuleSet::ALL
            .iter()
            .map(|&r| json!({ "id": r.name(), "description": rule_description(r) }))
            .collect();
        let players: Vec<Value> =
            players().into_iter().map(|(id, description)| json!({ "id": id, "description": description })).collect();
        json!({
            "rules": rules,
            "players": players,
            "backends": backends,
            "max_games": config.max_games,
            "idle_timeout_secs": config.idle_timeout.as_secs(),
            "store": self.store().dialect() == qchess_store::Dialect::Postgres,
            "computer_movetime_ms": config.computer_movetime.map(|movetime| movetime.as_millis() as u64),
        })
    }

    /// Stored games (the visitor's, when `owner` is given).
    pub async fn list(&self, query: &ListGames) -> Result<Value, GamesError> {
        let games = self.context.store.list(&query.filter()?).await.map_err(store_error)?;
        Ok(json!({ "games": games.iter().map(view::summary).collect::<Vec<_>>() }))
    }

    /// The legal moves of game `id`.
    pub async fn legal_moves(&self, id: &str, caller: &Caller) -> Result<Value, GamesError> {
        self.admit(id, caller, |_| Want::Watch).await?;
        self.on_session(id, |session| session.legal_moves()).await
    }

    /// The analysis of one square of game `id`.
    pub async fn square(&self, id: &str, caller: &Caller, square: Square) -> Result<Value, GamesError> {
        self.admit(id, caller, |_| Want::Watch).await?;
        self.on_session(id, move |session| session.square(square)).await
    }

    /// Game `id`'s record.
    pub async fn record(&self, id: &str, caller: &Caller) -> Result<Value, GamesError> {
        self.admit(id, caller, |_| Want::Watch).await?;
        let text = self.on_session(id, |session| session.record_text()).await?;
        Ok(json!({ "id": id, "record": text }))
    }

    /// Game `id`'s circuit.
    pub async fn circuit(&self, id: &str, caller: &Caller, format: Format) -> Result<Value, GamesError> {
        self.admit(id, caller, |_| Want::Watch).await?;
        self.on_session(id, move |session| session.circuit(format)).await
    }
}
