//! Configuration errors: each names the key path and where the value came from, and a bad config
//! reports all of its problems at once.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// Dotted key path (`device.geometry.channels`), or empty for the document as a whole.
    pub path: String,
    /// Where the offending value came from: a file, `--set`, a preset, a Python dict.
    pub origin: String,
    pub message: String,
}

impl ConfigError {
    pub fn new(path: &str, origin: &str, message: String) -> Self {
        Self { path: path.to_string(), origin: origin.to_string(), message }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.origin.is_empty(), self.path.is_empty()) {
            (true, true) => write!(f, "{}", self.message),
            (true, false) => write!(f, "{}: {}", self.path, self.message),
            (false, true) => write!(f, "{}: {}", self.origin, self.message),
            (false, false) => write!(f, "{}: {}: {}", self.origin, self.path, self.message),
        }
    }
}

/// Every problem found in one configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl ConfigErrors {
    pub fn one(e: ConfigError) -> Self {
        Self(vec![e])
    }
    pub fn push(&mut self, e: ConfigError) {
        self.0.push(e)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn into_result<T>(self, ok: T) -> Result<T, ConfigErrors> {
        if self.0.is_empty() {
            Ok(ok)
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}
