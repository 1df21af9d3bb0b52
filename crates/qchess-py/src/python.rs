//! Calls into the package's pure-Python modules (conversions to other libraries, rendering).

use pyo3::prelude::*;

/// The module `qchess.<name>`.
pub fn python_part<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyModule>> {
    py.import(format!("qchess.{name}"))
}

/// `json.loads(text)`.
pub fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}
