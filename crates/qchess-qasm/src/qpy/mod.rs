//! QPY (placeholder, written next).
