//! The live line on stderr while `grafter solve` runs (puzzles done, states, solutions,
//! states per second, elapsed time, engine), and the notes said before a run explores.
//! The line is drawn only where stderr is a terminal; the notes go to stderr either way.

use std::collections::VecDeque;
use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use console::Term;
use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

use grafter::{Plan, Progress};

/// How often the line is redrawn: the first time one tick into the run, so a run shorter
/// than that draws nothing.
const TICK: Duration = Duration::from_millis(100);

/// The span over which states per second are measured: long enough to be steady, short
/// enough to follow a run that slows down.
const RATE_WINDOW: Duration = Duration::from_secs(2);

/// The spinner's frames, one a tick: it shows the line is live when the counts stand
/// still (tabulating a large graph's applications, a slow state).
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// Columns the line leaves free at the right: a line that fills the last column leaves
/// the cursor waiting to wrap, and the terminal's echo of Ctrl-C (`^C`) would then start
/// a new line and strand the old one on the screen instead of being cleared with it.
const MARGIN: u16 = 3;

/// The live line of one `grafter solve` and the notes it states.
pub struct Live {
    /// The line; `None` when stderr is not a terminal.
    bar: Option<ProgressBar>,
    /// True when stdout is a terminal too: what is written there clears the line first
    /// and draws it again below, so the two do not mix.
    stdout_terminal: bool,
    /// Where the runs publish their counts.
    progress: &'static Progress,
    puzzles: usize,
    done: AtomicUsize,
    started: Instant,
    /// The first run's engine and expansion, as the line shows them.
    plan: OnceLock<String>,
    /// The fall-back reasons already stated.
    stated: Mutex<Vec<String>>,
}

impl Live {
    /// The line for a batch of `puzzles` runs that publish to `progress`, timed from now;
    /// drawn when stderr is a terminal.
    pub fn new(progress: &'static Progress, puzzles: usize) -> Live {
        let bar = io::stderr().is_terminal().then(|| {
            // The message fills the line and is cut at the terminal's width.
            let style = ProgressStyle::with_template("{wide_msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner());
            let stderr = Box::new(Narrowed(Term::stderr()));
            let target = ProgressDrawTarget::term_like_with_hz(stderr, 20);
            ProgressBar::with_draw_target(None, target).with_style(style)
        });
        Live {
            bar,
            stdout_terminal: io::stdout().is_terminal(),
            progress,
            puzzles,
            done: AtomicUsize::new(0),
            started: Instant::now(),
            plan: OnceLock::new(),
            stated: Mutex::new(Vec::new()),
        }
    }

    /// True when the line is drawn (stderr is a terminal): only then need runs publish.
    pub fn shown(&self) -> bool {
        self.bar.is_some()
    }

    /// The engine's plan listener: keeps the first plan for the line, and states each
    /// new reason for falling back to `--expand all` once, before the run explores.
    /// Called by every run, so it locks only when a run falls back.
    pub fn planned(&self, plan: &Plan) {
        if self.bar.is_some() && self.plan.get().is_none() {
            let _ = self
                .plan
                .set(format!("{}, expand {}", plan.engine, plan.expand.name()));
        }
        let Some(why) = &plan.fallback else { return };
        let mut stated = self.stated.lock().unwrap_or_else(|e| e.into_inner());
        if !stated.contains(why) {
            stated.push(why.clone());
            self.note(&format!("note: --expand focus falls back to all: {why}\n"));
        }
    }

    /// Writes `text` to stderr, above the line when it is drawn.
    pub fn note(&self, text: &str) {
        // A stderr that cannot be written to leaves nowhere to say so.
        let write = || {
            let _ = io::stderr().lock().write_all(text.as_bytes());
        };
        match &self.bar {
            Some(bar) => bar.suspend(write),
            None => write(),
        }
    }

    /// Runs `write`, which writes to stdout, with the line cleared while it does when
    /// both go to a terminal.
    pub fn to_stdout<R>(&self, write: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) if self.stdout_terminal => bar.suspend(write),
            _ => write(),
        }
    }

    /// Counts one puzzle done.
    pub fn puzzle_done(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }

    /// Draws the line every [`TICK`] until `stop` is dropped or sent to, then clears it:
    /// the summary on stdout says what it said. Returns at once when the line is not
    /// drawn.
    pub fn show_until(&self, stop: Receiver<()>) {
        let Some(bar) = &self.bar else { return };
        // (time, states) samples over the last RATE_WINDOW.
        let mut samples: VecDeque<(Instant, u64)> = VecDeque::new();
        samples.push_back((self.started, 0));
        let mut frame = 0;
        while let Err(RecvTimeoutError::Timeout) = stop.recv_timeout(TICK) {
            let now = Instant::now();
            let states = self.progress.counts().states;
            while samples.len() > 1 && now - samples[1].0 >= RATE_WINDOW {
                samples.pop_front();
            }
            let (then, before) = samples[0];
            let secs = (now - then).as_secs_f64();
            let rate = if secs > 0.0 {
                states.saturating_sub(before) as f64 / secs
            } else {
                0.0
            };
            samples.push_back((now, states));
            frame = (frame + 1) % SPINNER.len();
            let line = self.line(rate, now - self.started);
            bar.set_message(format!("{} {line}", SPINNER[frame]));
        }
        bar.finish_and_clear();
    }

    /// The line's text, what matters most first so that a narrow terminal cuts the
    /// least: `0:05 · 12/95 puzzles · 1.85 M states (2.40 M/s) · 934 k solutions · slot,
    /// expand focus` (73 columns with the spinner, without the puzzles).
    fn line(&self, rate: f64, elapsed: Duration) -> String {
        let c = self.progress.counts();
        let mut parts = vec![clock(elapsed)];
        if self.puzzles > 1 {
            parts.push(format!(
                "{}/{} puzzles",
                HumanCount(self.done.load(Ordering::Relaxed) as u64),
                HumanCount(self.puzzles as u64)
            ));
        }
        parts.push(format!("{} states ({}/s)", si(c.states as f64), si(rate)));
        parts.push(format!(
            "{} solution{}",
            si(c.solutions as f64),
            if c.solutions == 1 { "" } else { "s" }
        ));
        if let Some(plan) = self.plan.get() {
            parts.push(plan.clone());
        }
        parts.join(" · ")
    }
}

/// A rate with an SI prefix and three significant figures: `812`, `45.3 k`, `2.31 M`.
fn si(x: f64) -> String {
    let (scaled, prefix) = if x >= 1e9 {
        (x / 1e9, " G")
    } else if x >= 1e6 {
        (x / 1e6, " M")
    } else if x >= 1e3 {
        (x / 1e3, " k")
    } else {
        return format!("{x:.0}");
    };
    let decimals = if scaled >= 100.0 {
        0
    } else if scaled >= 10.0 {
        1
    } else {
        2
    };
    format!("{scaled:.decimals$}{prefix}")
}

/// Elapsed time as `m:ss`, or `h:mm:ss` from an hour on.
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    if s < 3600 {
        format!("{}:{:02}", s / 60, s % 60)
    } else {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }
}

/// Stderr as the line's terminal, [`MARGIN`] columns narrower than it is.
#[derive(Debug)]
struct Narrowed(Term);

impl TermLike for Narrowed {
    fn width(&self) -> u16 {
        self.0.size().1.saturating_sub(MARGIN).max(1)
    }

    fn height(&self) -> u16 {
        self.0.size().0
    }

    fn move_cursor_up(&self, n: usize) -> io::Result<()> {
        self.0.move_cursor_up(n)
    }

    fn move_cursor_down(&self, n: usize) -> io::Result<()> {
        self.0.move_cursor_down(n)
    }

    fn move_cursor_right(&self, n: usize) -> io::Result<()> {
        self.0.move_cursor_right(n)
    }

    fn move_cursor_left(&self, n: usize) -> io::Result<()> {
        self.0.move_cursor_left(n)
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        self.0.write_line(s)
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        self.0.write_str(s)
    }

    fn clear_line(&self) -> io::Result<()> {
        self.0.clear_line()
    }

    fn flush(&self) -> io::Result<()> {
        self.0.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_with_three_figures() {
        assert_eq!(si(812.4), "812");
        assert_eq!(si(45_321.0), "45.3 k");
        assert_eq!(si(2_314_000.0), "2.31 M");
        assert_eq!(si(123_456_789.0), "123 M");
        assert_eq!(si(4.2e9), "4.20 G");
    }

    #[test]
    fn the_clock_reads_hours_minutes_seconds() {
        assert_eq!(clock(Duration::from_millis(5_900)), "0:05");
        assert_eq!(clock(Duration::from_secs(725)), "12:05");
        assert_eq!(clock(Duration::from_secs(3_725)), "1:02:05");
    }
}
