//! The one error type of the command: a message for stderr. Every failure
//! the user can cause exits with status 2, like clap's usage errors.

use std::fmt;

/// A user-facing failure.
#[derive(Debug)]
pub struct Error(String);

impl Error {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }

    /// The same error with `context: ` in front.
    pub fn context(self, context: impl fmt::Display) -> Self {
        Error(format!("{context}: {}", self.0))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Result of a subcommand.
pub type Result<T> = std::result::Result<T, Error>;
