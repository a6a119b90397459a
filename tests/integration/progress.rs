//! The live line and the notes before a run: nothing but the notes where stderr is not a
//! terminal (the tests' own case, so every other test's output is unchanged), a live line
//! of counts on a terminal (a pseudo-terminal made by `script`, where it is installed),
//! and a fall-back to `--expand all` stated once, before the run explores.

use std::process::Command;

use crate::support::{fixture, grafter, rule, temp_path, BIN};

/// The empty 6x6 Sudoku: 28,200,960 solutions, a run of half a minute or more.
const EMPTY_SIX: &str = "....................................\n";

/// What the live line always holds while the slot engine runs: the rate and the plan.
const LIVE: [&str; 2] = ["/s) · ", "slot, expand focus"];

const FALLS_BACK: &str = "note: --expand focus falls back to all: ";

fn write(tag: &str, text: &str) -> std::path::PathBuf {
    let path = temp_path(tag, "txt");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn without_a_terminal_stderr_has_no_live_line() {
    let puzzles = write("empty-six", EMPTY_SIX);
    let run = grafter([
        "solve".as_ref(),
        rule("sudoku-6x6").as_os_str(),
        "--puzzles".as_ref(),
        puzzles.as_os_str(),
        "--count".as_ref(),
        "--timeout".as_ref(),
        "0.5".as_ref(),
    ]);
    run.expect_code(3);
    // The stop note alone: no line drawn, no escape sequence, no carriage return.
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{:?}", run.stderr);
    assert!(
        lines[0].starts_with("puzzle 1: stopped after ") && lines[0].ends_with(" s (--timeout)"),
        "{:?}",
        run.stderr
    );
    assert!(!run.stderr.contains(['\r', '\u{1b}']), "{:?}", run.stderr);
    // A complete run says nothing on stderr.
    let run = grafter(["solve".as_ref(), rule("sudoku-4x4-centre").as_os_str()]);
    run.ok();
    assert_eq!(run.stderr, "");
    std::fs::remove_file(puzzles).ok();
}

/// A grammar whose focus is unsound: the note is on stderr once for a batch, whatever the
/// number of puzzles, and the counts are those of `--expand all`.
#[test]
fn a_fall_back_is_stated_once_for_a_batch() {
    let file = fixture("not-slot/nested-nac.graft");
    let one = grafter(["solve".as_ref(), file.as_os_str(), "--count".as_ref()]);
    one.ok();
    let lines: Vec<&str> = one.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{:?}", one.stderr);
    assert!(lines[0].starts_with(FALLS_BACK), "{:?}", one.stderr);
    let all = grafter([
        "solve".as_ref(),
        file.as_os_str(),
        "--count".as_ref(),
        "--expand".as_ref(),
        "all".as_ref(),
    ]);
    all.ok();
    assert_eq!(all.stderr, "", "asked for all: nothing falls back");
    assert_eq!(one.counts(), all.counts());
    // The same reason the summary gives.
    let json = grafter([
        "solve".as_ref(),
        file.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    json.ok();
    let summary = json.puzzles().remove(0).summary;
    let why = summary["fallback"].as_str().expect("a fall-back reason");
    assert_eq!(lines[0], format!("{FALLS_BACK}{why}"));
    // Four puzzles (the file's grid is 2x2), one note.
    let puzzles = write("nested-nac", "....\n1...\n.2..\n....\n");
    let batch = grafter([
        "solve".as_ref(),
        file.as_os_str(),
        "--puzzles".as_ref(),
        puzzles.as_os_str(),
        "--count".as_ref(),
    ]);
    batch.ok();
    assert_eq!(batch.counts().len(), 4);
    assert_eq!(batch.stderr, one.stderr);
    std::fs::remove_file(puzzles).ok();
}

/// `script -qec COMMAND /dev/null`: COMMAND on a pseudo-terminal, stdout and stderr both
/// to it; what the terminal received and the exit status. `None`, with a line on stderr,
/// where `script` is missing or cannot make a terminal.
fn on_a_terminal(args: &[&str]) -> Option<(String, i32)> {
    let quoted: Vec<String> = std::iter::once(BIN)
        .chain(args.iter().copied())
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let out = Command::new("script")
        .current_dir(crate::support::root())
        .args(["-qec", &quoted.join(" "), "/dev/null"])
        .output();
    match out {
        Ok(out) if !String::from_utf8_lossy(&out.stderr).contains("script:") => Some((
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code().unwrap_or(-1),
        )),
        other => {
            eprintln!("skipped: no pseudo-terminal from `script` (util-linux): {other:?}");
            None
        }
    }
}

/// The text a terminal shows last: the output with each line's redrawn parts dropped
/// (everything up to its last carriage return or erase-line sequence).
fn settled(terminal: &str) -> Vec<String> {
    terminal
        .split('\n')
        .map(|line| {
            let cut = line
                .rfind("\u{1b}[2K")
                .map(|i| i + 4)
                .into_iter()
                .chain(line.trim_end_matches('\r').rfind('\r').map(|i| i + 1))
                .max()
                .unwrap_or(0);
            line[cut..].trim_end_matches('\r').to_string()
        })
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn on_a_terminal_a_live_line_shows_the_counts_then_goes() {
    let puzzles = write("empty-six-tty", EMPTY_SIX);
    let file = rule("sudoku-6x6");
    let Some((shown, code)) = on_a_terminal(&[
        "solve",
        &file.display().to_string(),
        "--puzzles",
        &puzzles.display().to_string(),
        "--count",
        "--timeout",
        "1.5",
    ]) else {
        return;
    };
    assert_eq!(code, 3, "{shown:?}");
    for part in LIVE.iter().chain(&[" states (", " solutions · "]) {
        assert!(shown.contains(part), "no {part:?} in {shown:?}");
    }
    // The states drawn (`1.08 M states (2.31 M/s)`) never go down, and go up.
    let drawn: Vec<&str> = shown.split(" states (").collect();
    let states: Vec<f64> = drawn[..drawn.len() - 1]
        .iter()
        .map(|s| si_value(s.rsplit(" · ").next().unwrap_or(s)))
        .collect();
    assert!(states.len() >= 3, "{shown:?}");
    assert!(states.windows(2).all(|w| w[0] <= w[1]), "{states:?}");
    assert!(states[0] < states[states.len() - 1], "{states:?}");
    // What stays on the screen: the stop note and the count, not the line.
    let screen = settled(&shown);
    assert_eq!(screen.len(), 2, "{screen:?} from {shown:?}");
    assert!(
        screen[0].starts_with("puzzle 1: stopped after "),
        "{screen:?}"
    );
    assert!(screen[1].parse::<u64>().is_ok(), "{screen:?}");
    std::fs::remove_file(puzzles).ok();
}

/// On a terminal the fall-back note comes before the first drawing of the line.
#[test]
fn on_a_terminal_the_fall_back_comes_before_the_run() {
    let file = fixture("limits/rows-12x12.graft");
    let Some((shown, code)) = on_a_terminal(&[
        "solve",
        &file.display().to_string(),
        "--count",
        "--timeout",
        "1",
    ]) else {
        return;
    };
    assert_eq!(code, 3, "{shown:?}");
    let note = shown.find(FALLS_BACK).expect("a fall-back note");
    let line = shown.find(" states (").expect("a live line");
    assert!(note < line, "{shown:?}");
    assert!(shown.contains("graph, expand all"), "{shown:?}");
}

/// A number as the live line writes it: `812`, `45.3 k`, `2.31 M`.
fn si_value(text: &str) -> f64 {
    let (number, scale) = match text.split_once(' ') {
        Some((n, "k")) => (n, 1e3),
        Some((n, "M")) => (n, 1e6),
        Some((n, "G")) => (n, 1e9),
        _ => (text, 1.0),
    };
    number
        .parse::<f64>()
        .unwrap_or_else(|_| panic!("not a count: {text:?}"))
        * scale
}
