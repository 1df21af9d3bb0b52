//! The web board: one page and its scripts, style and icon, compiled into the binary, and the
//! game API's OpenAPI description.
//!
//! `GET /` is the board; it loads `/assets/board.js` (drawing), `/assets/play.js` (input and
//! game flow), `/assets/analysis.js` (the coach: evaluation bar, hint, best line, review),
//! `/assets/board.css` and `/favicon.svg` (also served at `/favicon.ico`).
//! `GET /openapi.json` is the API description. The assets are
//! plain hand-written HTML, JavaScript and CSS, so nothing needs building. These routes need
//! no API key: the page asks for one when the API answers 401.

use std::sync::Arc;

use axum::Router;
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::IntoResponse;
use axum::routing::get;

use crate::AppState;

const INDEX: &str = include_str!("assets/index.html");
const DRAWING: &str = include_str!("assets/board.js");
const PLAYING: &str = include_str!("assets/play.js");
const COACHING: &str = include_str!("assets/analysis.js");
const STYLE: &str = include_str!("assets/board.css");
const ICON: &str = include_str!("assets/favicon.svg");

/// The page's routes.
pub fn routes() -> Router<Arc<AppState>> {
    Router::new()
        .route("/", get(|| asset("text/html; charset=utf-8", INDEX)))
        .route("/assets/board.js", get(|| asset("text/javascript; charset=utf-8", DRAWING)))
        .route("/assets/play.js", get(|| asset("text/javascript; charset=utf-8", PLAYING)))
        .route("/assets/analysis.js", get(|| asset("text/javascript; charset=utf-8", COACHING)))
        .route("/assets/board.css", get(|| asset("text/css; charset=utf-8", STYLE)))
        .route("/favicon.svg", get(|| asset("image/svg+xml", ICON)))
        .route("/favicon.ico", get(|| asset("image/svg+xml", ICON)))
        .route("/openapi.json", get(|| asset("application/json", crate::games::OPENAPI)))
}

async fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    ([(CONTENT_TYPE, content_type), (CACHE_CONTROL, "no-cache")], body)
}
