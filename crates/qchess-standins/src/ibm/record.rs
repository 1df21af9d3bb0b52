//! Where the changes of jobs or sessions go when they outlive the server: a function handed in
//! from outside ([`persist`](super::persist) hands its writer in), so that the stores of jobs and
//! sessions need not know of databases.

use std::fmt;
use std::sync::Arc;

/// A function that writes a `T` with its id.
type Write<T> = dyn Fn(&str, &T) + Send + Sync;

/// Writes each change of a `T` (a job, a session) with its id. Cheap to clone.
pub struct Record<T>(Arc<Write<T>>);

impl<T> Record<T> {
    /// Writes with `write`.
    pub fn new(write: impl Fn(&str, &T) + Send + Sync + 'static) -> Record<T> {
        Record(Arc::new(write))
    }

    /// Writes `value`, the one named `id`, as it now is.
    pub fn write(&self, id: &str, value: &T) {
        (self.0)(id, value)
    }
}

impl<T> Clone for Record<T> {
    fn clone(&self) -> Record<T> {
        Record(Arc::clone(&self.0))
    }
}

impl<T> fmt::Debug for Record<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Record")
    }
}
