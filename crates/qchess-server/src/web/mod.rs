//! The web board: one page and its scripts, style and icon, compiled into the binary, and the
//! game API's OpenAPI description.
//!
//! `GET /` is the board; it loads `/assets/board.js` (drawing), `/assets/seats.js` (seats,
//! live updates and clocks), `/assets/play.js` (input and game flow), `/assets/analysis.js`
//! (the coach: evaluation bar, hint, best line, review), `/assets/board.css` and
//! `/favicon.svg` (also served at `/favicon.ico`).
//! `GET /openapi.json` is the API description. The assets are
//! plain hand-written HTML, JavaScript and CSS, so nothing needs building. These routes need
//! no API key: the page asks for one when the API answers 401.

use std::sync::Arc;

use axum::Router;
use axum::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use axum::response::IntoResponse;
use axum::routing::get;

use crate::AppState;

const INDEX: &str = include_str!("assets/index.html");
const DRAWING: &str = include_str!("assets/board.js");
const PLAYING: &str = include_str!("assets/play.js");
const SEATS: &str = include_str!("assets/seats.js");
const COACHING: &str = include_str!("assets/analysis.js");
const STYLE: &str = include_str!("assets/board.css");
const ICON: &str = include_str!("assets/favicon.svg");

/// The page's routes.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/", get(page))
        .route("/assets/board.js", get(|| asset("text/javascript; charset=utf-8", DRAWING)))
        .route("/assets/play.js", get(|| asset("text/javascript; charset=utf-8", PLAYING)))
        .route("/assets/seats.js", get(|| asset("text/javascript; charset=utf-8", SEATS)))
        .route("/assets/analysis.js", get(|| asset("text/javascript; charset=utf-8", COACHING)))
        .route("/assets/board.css", get(|| asset("text/css; charset=utf-8", STYLE)))
        .route("/favicon.svg", get(|| asset("image/svg+xml", ICON)))
        .route("/favicon.ico", get(|| asset("image/svg+xml", ICON)))
        .route("/openapi.json", get(|| asset("application/json", crate::game_api::OPENAPI)))
}

/// The page may run only its own scripts and talk only to its own server: seat tokens kept in
/// the browser stay out of reach of anything injected, and no other site may frame it.
const POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; \
     connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

async fn page() -> impl IntoResponse {
    (
        [(CONTENT_TYPE, "text/html; charset=utf-8"), (CACHE_CONTROL, "no-cache"), (CONTENT_SECURITY_POLICY, POLICY)],
        INDEX,
    )
}

async fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    ([(CONTENT_TYPE, content_type), (CACHE_CONTROL, "no-cache")], body)
}
