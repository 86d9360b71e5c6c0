//! The speakers a table's options ask for, and the warnings when nobody would hear.
//!
//! By job: the settings and their checks (`options`), what is asked once at start for all
//! tables (`check`: speech-dispatcher, the machine's audio, the named devices), the
//! speakers built from them (`build`), and the one line that says what every table got
//! (`summary`).

mod build;
mod check;
mod options;
mod summary;

pub use build::{build, build_all, build_checked, wav_dir, Built, Speakers};
pub use check::{check_all, check_devices, no_audio_output, probe, Checked, Probe};
pub use options::{AudioError, AudioKey, AudioOptions, PublicTo};
pub use summary::{summary, table_list, Report, Room};

/// The longest device name taken (a device is a [`crate::speaker::Sink`]'s business).
pub use crate::speaker::MAX_DEVICE_NAME;
