//! `grafter serve`: the playground, a local web page where a rule file and puzzles are
//! edited and run. The page is plain HTML, CSS and JavaScript embedded in the binary; it
//! talks to a small JSON API:
//!
//! ```text
//! GET  /api/examples           the rule files of rules/: [{"path","name","about","text"}]
//! GET  /api/caps               the server's caps on every run, and the runs going
//! POST /api/runs               start a run (application/json: {"rules", "puzzles", ...}):
//!                              202 {"id"}, or 400, 413 (too large), 415, 503 (busy)
//! GET  /api/runs/ID?after=N    the run's JSON lines from the N-th on, waiting up to a
//!                              second for one: {"next", "done", "lines": [...]}
//! POST /api/runs/ID/stop       stop the run as a limit does: {"stopping": true}
//! ```
//!
//! Each run is a worker process under the caps (`runs`); its lines are those of
//! `worker`, then an `end` line.

mod examples;
mod limits;
mod runs;
mod worker;

use std::io::Read;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tiny_http::{Header, Method, Request, Response, Server};

use crate::args::ServeArgs;
use crate::Failure;
use limits::{Caps, RunRequest};
use runs::{Runs, StartError};

const PAGE: &str = include_str!("page/index.html");
const SCRIPT: &str = include_str!("page/app.js");
const STYLE: &str = include_str!("page/style.css");

/// The longest a request for a run's lines waits for one.
const LONG_POLL: Duration = Duration::from_secs(1);

/// The page's own rules: everything from this server, scripts from files only (so that
/// nothing in a picture can run), pictures inline.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// `grafter serve`.
pub fn serve(args: &ServeArgs) -> Result<u8, Failure> {
    if args.worker {
        return worker::work();
    }
    let caps = Caps::from_args(args);
    let server = Server::http((args.bind, args.port)).map_err(|e| {
        Failure::BadInput(format!(
            "error: cannot listen on {}:{}: {e}\n  = help: another port (--port 0 picks a free one)\n",
            args.bind, args.port
        ))
    })?;
    let addr = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| Failure::BadInput("error: the server has no TCP address\n".into()))?;
    let exe = std::env::current_exe()?;
    let site = Arc::new(Site {
        runs: Runs::new(caps, exe),
        loopback: args.bind.is_loopback(),
    });
    crate::to_stderr(&format!(
        "grafter serve: the playground is at http://{addr}/ (Ctrl-C ends it)\n"
    ));
    if !args.bind.is_loopback() {
        crate::to_stderr(&format!(
            "note: listening on {}: anyone who reaches this address can run rule files here, within the caps\n",
            args.bind
        ));
    }
    let server = Arc::new(server);
    // Each handler serves one request at a time; a run's lines are asked for one request
    // at a time per page, waiting at most a second, so a few handlers serve many pages.
    let handlers: Vec<_> = (0..caps.runs * 2 + 6)
        .map(|_| {
            let (server, site) = (Arc::clone(&server), Arc::clone(&site));
            std::thread::spawn(move || {
                while let Ok(request) = server.recv() {
                    site.handle(request);
                }
            })
        })
        .collect();
    for h in handlers {
        let _ = h.join();
    }
    Ok(0)
}

struct Site {
    runs: Arc<Runs>,
    /// Listening on a loopback address: requests must name a loopback host, so that a
    /// page elsewhere cannot reach this server through a name of its own (DNS rebinding).
    loopback: bool,
}

type Reply = Response<std::io::Cursor<Vec<u8>>>;

impl Site {
    fn handle(&self, mut request: Request) {
        let reply = self.route(&mut request);
        // A page that went away cannot be told.
        let _ = request.respond(reply);
    }

    fn route(&self, request: &mut Request) -> Reply {
        if self.loopback && !loopback_host(request) {
            return error(403, "this server answers to localhost and 127.0.0.1 only");
        }
        let url = request.url().to_string();
        let (path, query) = url.split_once('?').unwrap_or((&url, ""));
        let method = request.method().clone();
        match (&method, path) {
            (Method::Get, "/" | "/index.html") => page(PAGE, "text/html; charset=utf-8"),
            (Method::Get, "/app.js") => page(SCRIPT, "text/javascript; charset=utf-8"),
            (Method::Get, "/style.css") => page(STYLE, "text/css; charset=utf-8"),
            (Method::Get, "/api/examples") => reply_json(200, &json!(examples::examples())),
            (Method::Get, "/api/caps") => {
                let mut caps = json!(self.runs.caps());
                caps["going"] = self.runs.going().into();
                reply_json(200, &caps)
            }
            (Method::Post, "/api/runs") => self.start(request),
            (
                _,
                "/" | "/index.html" | "/app.js" | "/style.css" | "/api/examples" | "/api/caps"
                | "/api/runs",
            ) => error(405, &format!("{method} is not allowed here")),
            _ => match run_path(path) {
                Some((id, None)) if method == Method::Get => self.lines(id, query),
                Some((id, Some("stop"))) if method == Method::Post => {
                    if self.runs.stop(id) {
                        reply_json(200, &json!({"stopping": true}))
                    } else {
                        error(404, &format!("no run {id}"))
                    }
                }
                Some(_) => error(405, &format!("{method} is not allowed here")),
                None => error(404, &format!("nothing at {path}")),
            },
        }
    }

    /// `POST /api/runs`.
    fn start(&self, request: &mut Request) -> Reply {
        let json_body = request.headers().iter().any(|h| {
            h.field.equiv("Content-Type")
                && h.value
                    .as_str()
                    .trim_start()
                    .starts_with("application/json")
        });
        if !json_body {
            return error(415, "expected a JSON body (Content-Type: application/json)");
        }
        let cap = self.runs.caps().request_bytes;
        let too_large = || {
            error(
                413,
                &format!("the request is larger than the server's cap of {cap} bytes"),
            )
        };
        if request.body_length().is_some_and(|n| n > cap) {
            return too_large();
        }
        let mut body = Vec::new();
        if request
            .as_reader()
            .take(cap as u64 + 1)
            .read_to_end(&mut body)
            .is_err()
        {
            return error(400, "the request's body could not be read");
        }
        if body.len() > cap {
            return too_large();
        }
        let asked: RunRequest = match serde_json::from_slice(&body) {
            Ok(r) => r,
            Err(e) => return error(400, &format!("the request is not a run: {e}")),
        };
        let job = self.runs.caps().job(asked);
        match self.runs.start(&job) {
            Ok(id) => reply_json(202, &json!({"id": id})),
            Err(StartError::Busy(n)) => error(
                503,
                &format!(
                    "{n} run{} going, as many as this server allows at once: try again when one ends",
                    if n == 1 { " is" } else { "s are" }
                ),
            ),
            Err(StartError::Spawn(e)) => error(500, &format!("the run could not start: {e}")),
        }
    }

    /// `GET /api/runs/ID?after=N`.
    fn lines(&self, id: u64, query: &str) -> Reply {
        let after = query
            .split('&')
            .find_map(|kv| kv.strip_prefix("after="))
            .map_or(Some(0), |n| n.parse::<usize>().ok());
        let Some(after) = after else {
            return error(400, "after= takes the number of lines already read");
        };
        match self.runs.lines(id, after, LONG_POLL) {
            Some(batch) => {
                // The lines are JSON already (the worker's, each checked as it came).
                let body = format!(
                    "{{\"next\":{},\"done\":{},\"lines\":[{}]}}",
                    batch.next,
                    batch.done,
                    batch.lines.join(",")
                );
                with_headers(Response::from_string(body), "application/json", 200)
            }
            None => error(404, &format!("no run {id}")),
        }
    }
}

/// `/api/runs/ID` as (ID, None) and `/api/runs/ID/stop` as (ID, Some("stop")).
fn run_path(path: &str) -> Option<(u64, Option<&str>)> {
    let rest = path.strip_prefix("/api/runs/")?;
    let (id, tail) = match rest.split_once('/') {
        Some((id, tail)) => (id, Some(tail)),
        None => (rest, None),
    };
    Some((id.parse().ok()?, tail))
}

/// True when the request's `Host` names a loopback address (or there is none: no browser
/// leaves it out).
fn loopback_host(request: &Request) -> bool {
    let Some(host) = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Host"))
        .map(|h| h.value.as_str().to_ascii_lowercase())
    else {
        return true;
    };
    // The name without its port; `[::1]:7070` keeps its brackets until here.
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.split(':').next().unwrap_or(""),
    };
    name == "localhost" || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn page(text: &'static str, content_type: &str) -> Reply {
    let reply = with_headers(Response::from_string(text), content_type, 200);
    if content_type.starts_with("text/html") {
        reply.with_header(header("Content-Security-Policy", CSP))
    } else {
        reply
    }
}

fn reply_json(status: u16, value: &serde_json::Value) -> Reply {
    with_headers(
        Response::from_string(value.to_string()),
        "application/json",
        status,
    )
}

/// `{"error": message}` with `status`.
fn error(status: u16, message: &str) -> Reply {
    reply_json(status, &json!({"error": message}))
}

fn with_headers(reply: Reply, content_type: &str, status: u16) -> Reply {
    reply
        .with_status_code(status)
        .with_header(header("Content-Type", content_type))
        .with_header(header("Cache-Control", "no-store"))
        .with_header(header("X-Content-Type-Options", "nosniff"))
}

fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("ASCII header")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_paths_name_a_run_and_an_action() {
        assert_eq!(run_path("/api/runs/7"), Some((7, None)));
        assert_eq!(run_path("/api/runs/7/stop"), Some((7, Some("stop"))));
        assert_eq!(run_path("/api/runs/x"), None);
        assert_eq!(run_path("/api/other/7"), None);
    }
}
