//! Table time.

/// Milliseconds of table time (the console's clock, passed in; never read inside).
pub type Millis = u64;
