//! A lost process ends the run loudly and at once. timely's network threads panic when a
//! connection breaks ("timely communication error: ..."), and the workers waiting on that
//! process would otherwise wait for ever: a panic hook turns that panic into one line
//! naming the process, and ends this process with [`LOST`]. The other processes see
//! their own connections to it break, and end the same way.

use std::panic::PanicHookInfo;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

/// The exit status of a process whose run lost another process (or never got them all).
pub const LOST: u8 = 4;

/// The addresses of the run's processes, for the message.
static ADDRESSES: OnceLock<Vec<String>> = OnceLock::new();

/// Set by the first lost connection: the one that is told.
static TOLD: AtomicBool = AtomicBool::new(false);

/// How long this process keeps its own connections open after telling: the others then
/// see the process that was lost first, rather than this one going.
const LINGER: Duration = Duration::from_millis(300);

/// Installs the hook for a run over `addresses`. Panics anywhere else go to the hook
/// installed before (a bug keeps its trace).
pub fn watch(addresses: Vec<String>) {
    if ADDRESSES.set(addresses).is_err() {
        return;
    }
    let earlier = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| match lost_process(info) {
        Some(message) => {
            if TOLD.swap(true, Ordering::SeqCst) {
                // Another connection's loss is being told; the process ends there.
                loop {
                    std::thread::park();
                }
            }
            let _ = std::io::Write::write_all(&mut std::io::stderr(), message.as_bytes());
            std::thread::sleep(LINGER);
            std::process::exit(i32::from(LOST));
        }
        None => earlier(info),
    }));
}

/// The message for a panic that says a connection broke; `None` for any other panic.
fn lost_process(info: &PanicHookInfo<'_>) -> Option<String> {
    let text = info
        .payload()
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| info.payload().downcast_ref::<&str>().copied())
        .unwrap_or("");
    let thread = std::thread::current();
    let name = thread.name().unwrap_or("");
    // timely names its network threads `timely:send-P` and `timely:recv-P` after the
    // process P at the other end.
    let peer = name
        .strip_prefix("timely:recv-")
        .or_else(|| name.strip_prefix("timely:send-"))
        .and_then(|p| p.parse::<usize>().ok());
    if peer.is_none() && !text.contains("timely communication error") {
        return None;
    }
    let cause = text
        .strip_prefix("timely communication error: ")
        .unwrap_or(text);
    let whom = match peer {
        Some(p) => match ADDRESSES.get().and_then(|a| a.get(p)) {
            Some(address) => format!("process {p} ({address})"),
            None => format!("process {p}"),
        },
        None => "another process".to_string(),
    };
    Some(format!(
        "error: lost {whom} of the distributed run ({cause}): it ended or its connection \
         broke; this process stops too\n"
    ))
}
