//! Writing command output.

use anyhow::Result;

/// Writes `text` to stdout. A reader that went away (`qchess ... | head`) is not an error:
/// there is nobody left to tell.
pub fn print(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}
