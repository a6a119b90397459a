//! Ctrl-C and SIGTERM during `solve`: the first stops the run the way a limit does, a
//! second ends the process at once.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;

/// The flag a run polls, and which signal set it.
pub struct Interrupts {
    /// Set by the first SIGINT or SIGTERM, or by the caller (a closed stdout): every run
    /// stops with reason `interrupted` at its next poll.
    pub stop: &'static AtomicBool,
    signal: Arc<AtomicUsize>,
}

impl Interrupts {
    /// Installs the handlers. A second signal, arriving once `stop` is set, exits with
    /// 128 + its number without waiting for the run.
    pub fn install() -> io::Result<Interrupts> {
        let stop = Arc::new(AtomicBool::new(false));
        let signal = Arc::new(AtomicUsize::new(0));
        for sig in [SIGINT, SIGTERM] {
            // Registered before the handler that sets `stop`, so it sees the flag as the
            // previous signal left it: only a second signal exits.
            flag::register_conditional_shutdown(sig, 128 + sig, Arc::clone(&stop))?;
            flag::register_usize(sig, Arc::clone(&signal), sig as usize)?;
            flag::register(sig, Arc::clone(&stop))?;
        }
        // Runs take a `&'static` flag; one per process, alive until it exits.
        let stop: &'static Arc<AtomicBool> = Box::leak(Box::new(stop));
        Ok(Interrupts { stop, signal })
    }

    /// The exit status a shell reports for the signal that stopped the run (130 for
    /// SIGINT, 143 for SIGTERM); `None` when no signal came.
    pub fn status(&self) -> Option<u8> {
        match self.signal.load(Ordering::Relaxed) {
            0 => None,
            sig => u8::try_from(128 + sig).ok(),
        }
    }
}
