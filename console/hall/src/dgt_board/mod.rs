//! DGT e-boards at a table: the pure reading of settled placements ([`convert`]) and the
//! task that drives a board and feeds its table ([`feed`]).

pub mod convert;
pub(crate) mod feed;

pub use convert::{DgtReader, Fed};
