//! The command line's own habits: help with examples and exit statuses, shell completions,
//! manual pages, and puzzles read from standard input.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::support::{data, grafter, root, rule, BIN};

#[test]
fn help_shows_examples_and_every_exit_status() {
    let run = grafter(["--help"]);
    run.ok();
    assert!(run
        .stdout
        .contains("Examples:\n  grafter solve rules/sudoku-4x4-centre.graft"));
    for status in ["0 ", "1 ", "2 ", "3 ", "130 ", "141 "] {
        assert!(
            run.stdout.contains(&format!("\n  {status}")),
            "no exit status {status}in --help:\n{}",
            run.stdout
        );
    }
    // Every rule file the examples name exists.
    for word in run.stdout.split_whitespace() {
        if word.starts_with("rules/") {
            assert!(root().join(word).is_file(), "--help names a missing {word}");
        }
    }
}

#[test]
fn completions_are_generated_for_each_shell() {
    for (shell, marker) in [
        ("bash", "_grafter()"),
        ("zsh", "#compdef grafter"),
        ("fish", "complete -c grafter"),
    ] {
        let run = grafter(["completions", shell]);
        run.ok();
        assert!(run.stdout.contains(marker), "{shell}: no `{marker}`");
        assert!(
            run.stdout.contains("max-solutions"),
            "{shell}: options missing"
        );
    }
    grafter(["completions", "tcsh"]).expect_code(2);
}

#[test]
fn manual_pages_cover_grafter_and_each_subcommand() {
    let run = grafter(["man"]);
    run.ok();
    assert!(run.stdout.contains(".TH grafter 1"));
    assert!(run.stdout.contains("completions"));
    let run = grafter(["man", "solve"]);
    run.ok();
    assert!(run.stdout.contains(".TH grafter-solve 1"));
    assert!(run.stdout.contains("max\\-memory"));
    grafter(["man", "nope"]).expect_code(2);
}

/// Runs `grafter ARGS` in the repository root with `input` on its standard input.
fn with_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    let mut child = Command::new(BIN)
        .current_dir(root())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the grafter binary runs");
    child
        .stdin
        .take()
        .expect("a stdin pipe")
        .write_all(input)
        .expect("stdin takes the input");
    child.wait_with_output().expect("grafter finishes")
}

/// `--puzzles -` reads the puzzles from standard input, with the same output as the file.
#[test]
fn puzzles_can_come_from_standard_input() {
    let puzzles = data("sudoku9/top95.txt");
    let text = std::fs::read_to_string(&puzzles).expect("the puzzle file reads");
    let first: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
    let file = std::env::temp_dir().join(format!("grafter-stdin-{}.txt", std::process::id()));
    std::fs::write(&file, &first).expect("a temporary file");
    let from_file = grafter([
        "solve".as_ref(),
        rule("sudoku-9x9").as_os_str(),
        "--puzzles".as_ref(),
        file.as_os_str(),
        "--count".as_ref(),
    ]);
    std::fs::remove_file(&file).ok();
    from_file.ok();

    let out = with_stdin(
        &[
            "solve",
            "rules/sudoku-9x9.graft",
            "--puzzles",
            "-",
            "--count",
        ],
        first.as_bytes(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    assert_eq!(stdout, from_file.stdout);
    assert_eq!(stdout.lines().count(), 5);
}

/// Errors in puzzles from standard input name `<stdin>`.
#[test]
fn errors_in_standard_input_name_it() {
    let out = with_stdin(
        &["solve", "rules/sudoku-4x4.graft", "--puzzles", "-"],
        b"12x4............\n",
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.starts_with("<stdin>:1:3: error:"), "{stderr}");
}
