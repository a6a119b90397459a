//! `grafter serve` without a browser: HTTP requests to its API, the JSON it answers checked
//! against the independent checker and brute force, its caps and its stop.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::brute;
use crate::checker::check_all;
use crate::support::{all_rule_files, data, fixture, root, rule, BIN};
use crate::variant::{rule_file, start_givens, Variant};

/// A `grafter serve --port 0` process, ended when dropped.
pub struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT/`.
    pub url: String,
    agent: ureq::Agent,
}

impl Served {
    /// Starts the server with `args` besides `--port 0`, and reads its address from the
    /// line it writes on stderr.
    pub fn start(args: &[&str]) -> Served {
        let mut child = Command::new(BIN)
            .args(["serve", "--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("grafter serve starts");
        let mut line = String::new();
        BufReader::new(child.stderr.take().expect("piped"))
            .read_line(&mut line)
            .expect("a line on stderr");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        assert!(url.starts_with("http://127.0.0.1:"), "{line}");
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        Served { child, url, agent }
    }

    /// GET `path`: the status and the body.
    pub fn get(&self, path: &str) -> (u16, String) {
        let mut reply = self
            .agent
            .get(format!("{}{}", self.url, path.trim_start_matches('/')))
            .call()
            .expect("an answer");
        let body = reply
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .expect("a body");
        (reply.status().as_u16(), body)
    }

    /// POST `body` as JSON to `path`: the status and the body read as JSON.
    pub fn post(&self, path: &str, body: &str) -> (u16, Value) {
        let mut reply = self
            .agent
            .post(format!("{}{}", self.url, path.trim_start_matches('/')))
            .header("Content-Type", "application/json")
            .send(body)
            .expect("an answer");
        let text = reply.body_mut().read_to_string().expect("a body");
        let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        (reply.status().as_u16(), value)
    }

    /// Starts a run of `request`: its id.
    pub fn start_run(&self, request: &Value) -> u64 {
        let (status, reply) = self.post("/api/runs", &request.to_string());
        assert_eq!(status, 202, "{reply}");
        reply["id"].as_u64().expect("an id")
    }

    /// The lines of run `id` from `after` on, and whether the run is done.
    pub fn lines(&self, id: u64, after: usize) -> (Vec<Value>, bool) {
        let (status, body) = self.get(&format!("/api/runs/{id}?after={after}"));
        assert_eq!(status, 200, "{body}");
        let batch: Value = serde_json::from_str(&body).expect("JSON");
        assert_eq!(
            batch["next"].as_u64(),
            Some((after + batch["lines"].as_array().unwrap().len()) as u64)
        );
        (
            batch["lines"].as_array().unwrap().clone(),
            batch["done"].as_bool().unwrap(),
        )
    }

    /// Every line of run `id`, waiting for its end (at most a minute).
    pub fn finish(&self, id: u64) -> Vec<Value> {
        let started = Instant::now();
        let mut all = Vec::new();
        loop {
            let (lines, done) = self.lines(id, all.len());
            all.extend(lines);
            if done {
                return all;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "{all:?}");
        }
    }

    /// Runs `request` to its end: every line.
    pub fn run(&self, request: &Value) -> Vec<Value> {
        self.finish(self.start_run(request))
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

fn one<'a>(lines: &'a [Value], kind: &str) -> &'a Value {
    let found = of_type(lines, kind);
    assert_eq!(found.len(), 1, "one {kind} line in {lines:#?}");
    found[0]
}

/// A solution line's grid as one character per cell.
fn grid_text(line: &Value) -> String {
    line["grid"]
        .as_array()
        .expect("a grid")
        .iter()
        .flat_map(|row| row.as_array().expect("a row").iter())
        .map(|v| v.as_str().expect("a value name"))
        .collect()
}

/// Checks every solution line against `variant` and `givens` (one character per cell)
/// and the brute-force count; returns the count.
fn check_solutions(lines: &[Value], variant: &Variant, givens: &str) -> u64 {
    let givens = variant.parse_givens(givens);
    let grids: Vec<String> = of_type(lines, "solution")
        .into_iter()
        .map(grid_text)
        .collect();
    check_all(variant, &givens, &grids).unwrap();
    let count = brute::count(variant, &givens);
    assert_eq!(grids.len() as u64, count);
    count
}

#[test]
fn a_good_file_gives_its_board_solutions_summary_and_space() {
    let server = Served::start(&[]);
    let text = read(&rule("latin-4x4"));
    let lines = server.run(&json!({"rules": text}));
    let file = rule_file("latin-4x4");
    let count = check_solutions(&lines, &file.variant, &start_givens(&text));
    assert_eq!(count, file.start_solutions);
    assert!(of_type(&lines, "diagnostic").is_empty(), "{lines:#?}");
    assert!(one(&lines, "board")["svg"]
        .as_str()
        .unwrap()
        .starts_with("<svg"));
    for s in of_type(&lines, "solution") {
        assert!(s["svg"].as_str().unwrap().contains("class=\"placed\""));
    }
    let summary = one(&lines, "summary");
    assert_eq!(summary["solutions"], count);
    assert_eq!(summary["complete"], true);
    let space = one(&lines, "space");
    assert_eq!(space["capped"], false);
    assert!(space["states"].as_u64().unwrap() > count);
    let end = lines.last().unwrap();
    assert_eq!(
        (&end["type"], &end["ended_by"]),
        (&json!("end"), &Value::Null)
    );
}

#[test]
fn a_puzzle_of_the_puzzles_text_is_solved() {
    let server = Served::start(&[]);
    let puzzles = read(&data("variants/4x4.txt"));
    let lines: Vec<&str> = puzzles
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    let n = lines.len().min(3);
    let variant = rule_file("sudoku-4x4").variant;
    let run = server.run(&json!({
        "rules": read(&rule("sudoku-4x4")), "puzzles": puzzles, "puzzle": n, "space": false,
    }));
    let given = lines[n - 1].split_whitespace().next().unwrap();
    check_solutions(&run, &variant, given);
    let puzzle = one(&run, "puzzle");
    assert_eq!(puzzle["number"], n);
    assert_eq!(puzzle["of"], lines.len());
    assert!(of_type(&run, "space").is_empty());
    // A puzzle past the last is a problem of the puzzles, said in words.
    let run = server.run(&json!({
        "rules": read(&rule("sudoku-4x4")), "puzzles": puzzles, "puzzle": lines.len() + 1,
    }));
    let d = one(&run, "diagnostic");
    assert_eq!(d["file"], "puzzles");
    assert_eq!(
        d["message"],
        format!(
            "puzzle {} asked for, but there are {} puzzles",
            lines.len() + 1,
            lines.len()
        )
    );
    assert!(of_type(&run, "summary").is_empty());
}

#[test]
fn a_puzzle_line_with_layers_is_solved_with_its_own_structure() {
    let server = Served::start(&[]);
    let rules = read(&rule("jigsaw-4x4"));
    let puzzles = read(&fixture("layers/jigsaw-4x4.txt"));
    for (n, line) in puzzles
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .enumerate()
        .take(3)
    {
        let (given, regions) = line.split_once("| region:").expect("a regions layer");
        let layout: Vec<&str> = regions.split_whitespace().collect();
        let variant = Variant::latin(4, Variant::digits(4)).with_regions(&layout);
        let run = server.run(&json!({
            "rules": rules, "puzzles": puzzles, "puzzle": n + 1, "space": false,
        }));
        assert!(of_type(&run, "diagnostic").is_empty(), "{run:#?}");
        check_solutions(&run, &variant, given.trim());
    }
}

/// The 1-based line and column (in characters) of the first `needle` in `text`.
fn line_col(text: &str, needle: &str) -> (usize, usize) {
    let at = text.find(needle).expect("the needle is in the text");
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    (line, col)
}

#[test]
fn a_bad_file_gives_diagnostics_at_their_place() {
    let server = Served::start(&[]);
    let good = read(&rule("latin-4x4"));
    let typo = good.replacen("rule place", "rulle place", 1);
    let lines = server.run(&json!({"rules": typo}));
    let d = one(&lines, "diagnostic");
    assert_eq!(
        (&d["file"], &d["severity"]),
        (&json!("rules"), &json!("error"))
    );
    // The error is at `place`, which `rulle` leaves unexplained.
    let (line, col) = line_col(&typo, "place(");
    assert_eq!(
        (d["line"].as_u64(), d["col"].as_u64()),
        (Some(line as u64), Some(col as u64))
    );
    assert_eq!(d["end_line"].as_u64(), Some(line as u64));
    assert_eq!(
        d["end_col"].as_u64(),
        Some(col as u64 + "place".len() as u64)
    );
    assert!(d["help"][0].as_str().unwrap().contains("`rule`"), "{d}");
    assert!(d["text"]
        .as_str()
        .unwrap()
        .starts_with(&format!("rules:{line}:{col}: error: ")));
    assert!(of_type(&lines, "board").is_empty() && of_type(&lines, "summary").is_empty());
    // A warning is told at its place, and the run goes on.
    let unused = good.replacen(
        "edge in: Cell -> Group\n",
        "edge in: Cell -> Group\nedge knight: Cell -> Cell\n",
        1,
    );
    let lines = server.run(&json!({"rules": unused, "space": false}));
    let w = one(&lines, "diagnostic");
    assert_eq!(w["severity"], "warning");
    let (line, col) = line_col(&unused, "edge knight");
    assert_eq!(
        (w["line"].as_u64(), w["col"].as_u64()),
        (Some(line as u64), Some(col as u64))
    );
    assert_eq!(one(&lines, "summary")["solutions"], 3);
    // A bad puzzle line is told in the puzzles, with a second label where there is one.
    let lines = server.run(&json!({"rules": good, "puzzles": "# a comment\n12.\n"}));
    let d = one(&lines, "diagnostic");
    assert_eq!(
        (&d["file"], d["line"].as_u64()),
        (&json!("puzzles"), Some(2))
    );
}

#[test]
fn the_caps_hold_whatever_the_request_asks() {
    let server = Served::start(&["--max-solutions", "5", "--timeout", "1"]);
    // 576 solutions asked for, 5 given: the server's cap.
    let empty = read(&rule("latin-4x4"))
        .replace("1 2 . .", ". . . .")
        .replace("\n  . 3 . .\n  . . . 4\n", "\n  . . . .\n  . . . .\n");
    let lines = server.run(&json!({"rules": empty, "max_solutions": 1_000_000, "space": false}));
    let summary = one(&lines, "summary");
    assert_eq!(
        (&summary["solutions"], &summary["stop"]),
        (&json!(5), &json!("max-solutions"))
    );
    assert_eq!(of_type(&lines, "solution").len(), 5);
    // A run that never finds a final state, asked for an hour, ends at the server's second.
    let endless = never_final();
    let started = Instant::now();
    let lines = server.run(&json!({"rules": endless, "timeout": 3600, "space": false}));
    let summary = one(&lines, "summary");
    assert_eq!(
        (&summary["stop"], &summary["complete"]),
        (&json!("timeout"), &json!(false))
    );
    assert!(summary["seconds"].as_f64().unwrap() < 3.0, "{summary}");
    assert!(started.elapsed() < Duration::from_secs(10));
    // A request past the size cap is refused whole.
    let cap = 1 << 20;
    let huge = json!({"rules": "x".repeat(cap)}).to_string();
    let (status, reply) = server.post("/api/runs", &huge);
    assert_eq!(status, 413, "{reply}");
    assert!(reply["error"].as_str().unwrap().contains(&cap.to_string()));
    // Not a run: unknown fields, no JSON.
    let (status, reply) = server.post("/api/runs", r#"{"rules":"","threads":64}"#);
    assert_eq!(status, 400, "{reply}");
    assert!(reply["error"].as_str().unwrap().contains("threads"));
}

/// The empty 6x6 Latin square with a final condition no state meets: a run explores until
/// a limit stops it.
fn never_final() -> String {
    "values 1..6\n\
     node Cell { row: int, col: int, val: value? }\n\
     node Group\n\
     edge in: Cell -> Group\n\
     grid 6x6 of Cell\n\
     groups rows, columns\n\
     rule place(v: value) {\n\
       c: Cell { val == none }\n\
       not { c -in-> g: Group <-in- d: Cell { val == v } }\n\
       set c.val = v\n\
     }\n\
     final: not { c: Cell }\n"
        .to_string()
}

/// A short file that asks for a million cells: loading it does not poll any limit.
const MILLION_CELLS: &str = "values 1..9\n\
    node Cell { row: int, col: int, val: value? }\n\
    node Group\n\
    edge in: Cell -> Group\n\
    grid 1000x1000 of Cell\n\
    groups rows, columns\n\
    rule place(v: value) {\n\
      c: Cell { val == none }\n\
      not { c -in-> g: Group <-in- d: Cell { val == v } }\n\
      set c.val = v\n\
    }\n";

#[test]
fn a_run_past_the_memory_cap_is_ended() {
    let server = Served::start(&["--max-memory", "96M"]);
    let started = Instant::now();
    let lines = server.run(&json!({"rules": MILLION_CELLS}));
    let end = lines.last().unwrap();
    assert_eq!(end["ended_by"], "memory", "{lines:#?}");
    assert!(end["message"].as_str().unwrap().contains("96 MiB"), "{end}");
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn stop_ends_a_run_and_keeps_what_it_found() {
    let server = Served::start(&["--runs", "1"]);
    let id = server.start_run(&json!({"rules": never_final(), "space": false}));
    // Exploring: a progress line came.
    let mut lines = Vec::new();
    let started = Instant::now();
    while !lines.iter().any(|l: &Value| l["type"] == "progress") {
        let (more, done) = server.lines(id, lines.len());
        assert!(
            !done && started.elapsed() < Duration::from_secs(20),
            "{more:?}"
        );
        lines.extend(more);
    }
    // One run at a time: a second is refused while the first goes.
    let (status, reply) = server.post("/api/runs", &json!({"rules": "values 1"}).to_string());
    assert_eq!(status, 503, "{reply}");
    let asked = Instant::now();
    let (status, reply) = server.post(&format!("/api/runs/{id}/stop"), "");
    assert_eq!((status, &reply["stopping"]), (200, &json!(true)));
    lines.extend(server.finish(id));
    // At the run's next poll: well before its 30 s, or the second the server would wait.
    assert!(asked.elapsed() < Duration::from_secs(5));
    let summary = one(&lines, "summary");
    assert_eq!(
        (&summary["stop"], &summary["complete"]),
        (&json!("interrupted"), &json!(false))
    );
    assert!(summary["states"].as_u64().unwrap() > 0);
    assert_eq!(lines.last().unwrap()["ended_by"], Value::Null);
    // A stop while the file is still loading (which takes seconds and polls nothing)
    // ends the process after a grace of a second.
    let id = server.start_run(&json!({"rules": MILLION_CELLS}));
    let asked = Instant::now();
    let (status, _) = server.post(&format!("/api/runs/{id}/stop"), "");
    assert_eq!(status, 200);
    let lines = server.finish(id);
    assert_eq!(lines.last().unwrap()["ended_by"], "stop", "{lines:?}");
    assert!(asked.elapsed() < Duration::from_secs(8));
    // No such run.
    let (status, _) = server.post("/api/runs/999/stop", "");
    assert_eq!(status, 404);
}

#[test]
fn the_examples_are_the_rule_files_as_they_are() {
    let server = Served::start(&[]);
    let (status, body) = server.get("/api/examples");
    assert_eq!(status, 200);
    let examples: Vec<Value> = serde_json::from_str(&body).unwrap();
    let files = all_rule_files();
    assert_eq!(examples.len(), files.len());
    for (e, f) in examples.iter().zip(&files) {
        let rel = f
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        assert_eq!(e["path"], rel);
        assert_eq!(e["text"], read(f), "{rel}");
    }
    let (status, page) = server.get("/");
    assert_eq!(status, 200);
    assert!(page.contains("<title>grafter playground</title>"));
    assert_eq!(server.get("/nothing").0, 404);
}

/// Sends `request` as it is and returns the status line.
fn raw(server: &Served, request: &str) -> String {
    let addr = server
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/');
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    reply.lines().next().unwrap_or("").to_string()
}

#[test]
fn requests_from_elsewhere_are_refused() {
    let server = Served::start(&[]);
    // A name other than a loopback one: a page elsewhere rebinding its name to this machine.
    let status = raw(
        &server,
        "GET /api/caps HTTP/1.1\r\nHost: playground.example:80\r\nConnection: close\r\n\r\n",
    );
    assert!(status.contains(" 403 "), "{status}");
    let status = raw(
        &server,
        "GET /api/caps HTTP/1.1\r\nHost: localhost:1\r\nConnection: close\r\n\r\n",
    );
    assert!(status.contains(" 200 "), "{status}");
    // A form's plain text cannot start a run: only JSON, which a page elsewhere cannot
    // send here without asking first.
    let body = json!({"rules": "values 1"}).to_string();
    let status = raw(
        &server,
        &format!(
            "POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    );
    assert!(status.contains(" 415 "), "{status}");
}
