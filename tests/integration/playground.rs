//! The playground in a real browser: headless Chromium, driven over WebDriver
//! (chromedriver), loads an example, runs it, and the solutions are read from the page and
//! checked; a typo is marked at its place. Skipped, with a line saying so, where Chromium
//! or chromedriver is not installed (`.ci/run` installs both where it can).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::brute;
use crate::checker::check_all;
use crate::serve::Served;
use crate::support::rule;
use crate::variant::{rule_file, start_givens};

/// The flags Chromium needs to start quickly and quietly on a machine without a display,
/// a sandbox or a network.
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1500,1100",
];

/// The longest any one wait of the test lasts.
const PATIENCE: Duration = Duration::from_secs(30);

/// The first of `names` found as a file, as given or on `PATH`.
fn find(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    names.iter().find_map(|name| {
        let direct = Path::new(name);
        if direct.is_absolute() {
            return direct.is_file().then(|| direct.to_path_buf());
        }
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// A chromedriver process and one browser session, both ended when dropped.
struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
    _profile: TempDir,
}

/// A fresh directory for the browser's profile, removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Browser {
    fn start(chromium: &Path, chromedriver: &Path) -> Browser {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .into();
        let base = format!("http://127.0.0.1:{port}");
        let profile = TempDir(
            std::env::temp_dir().join(format!("grafter-playground-{}-{port}", std::process::id())),
        );
        let mut browser = Browser {
            driver,
            base,
            session: String::new(),
            agent,
            _profile: profile,
        };
        let started = Instant::now();
        while browser.call("GET", "/status", None)["ready"] != true {
            assert!(
                started.elapsed() < PATIENCE,
                "chromedriver did not get ready"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|s| s.to_string()).collect();
        args.push(format!("--user-data-dir={}", browser._profile.0.display()));
        let created = browser.call(
            "POST",
            "/session",
            Some(json!({"capabilities": {"alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {"binary": chromium, "args": args},
            }}})),
        );
        browser.session = created["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {created}"))
            .to_string();
        browser
    }

    /// One WebDriver command: its `value`.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let reply = match method {
            "GET" => self.agent.get(&url).call(),
            "DELETE" => self.agent.delete(&url).call(),
            _ => self
                .agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(body.unwrap_or_else(|| json!({})).to_string()),
        };
        let Ok(mut reply) = reply else {
            // chromedriver not listening yet.
            return Value::Null;
        };
        let text = reply
            .body_mut()
            .with_config()
            .limit(64 << 20)
            .read_to_string()
            .unwrap_or_default();
        let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        value["value"].clone()
    }

    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let value = self.call(method, &format!("/session/{}{path}", self.session), body);
        if let Some(error) = value.get("error") {
            panic!("WebDriver {path}: {error}: {}", value["message"]);
        }
        value
    }

    fn go(&self, url: &str) {
        self.command("POST", "/url", Some(json!({"url": url})));
    }

    /// Runs `script` (a function body) in the page: what it returns.
    fn eval(&self, script: &str) -> Value {
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Waits until `script` returns something other than null or false: that.
    fn wait_for(&self, what: &str, script: &str) -> Value {
        let started = Instant::now();
        loop {
            let v = self.eval(script);
            if !(v.is_null() || v == false) {
                return v;
            }
            assert!(started.elapsed() < PATIENCE, "waited too long for {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks the element `css` selects, as a user would.
    fn click(&self, css: &str) {
        let found = self.command(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        let id = found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_string();
        self.command("POST", &format!("/element/{id}/click"), None);
    }

    /// A screenshot of the window, as PNG bytes.
    fn screenshot(&self) -> Vec<u8> {
        use base64::Engine as _;
        let text = self.command("GET", "/screenshot", None);
        base64::engine::general_purpose::STANDARD
            .decode(text.as_str().expect("base64 text"))
            .expect("base64")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.call("DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// The run's state as the status line tells it, once it is no longer running.
const FINISHED: &str = "const s = document.getElementById('status').dataset.state; \
                        return s && s !== 'running' ? s : null;";

#[test]
fn the_playground_loads_an_example_runs_it_and_shows_its_solutions() {
    let chromium = find(&["chromium", "chromium-browser", "google-chrome"]);
    let chromedriver = find(&["chromedriver"]);
    let (Some(chromium), Some(chromedriver)) = (chromium, chromedriver) else {
        eprintln!(
            "skipped: the playground's browser test needs Chromium and chromedriver \
             (apt-get install chromium chromium-driver)"
        );
        return;
    };
    let server = Served::start(&[]);
    let browser = Browser::start(&chromium, &chromedriver);
    browser.go(&server.url);
    browser.wait_for(
        "the examples",
        "return document.getElementById('example').dataset.ready === 'yes';",
    );
    // Load the Latin square, as a user picks it from the list.
    browser.click("#example");
    browser.click("#example option[value='rules/latin-4x4.graft']");
    let text = std::fs::read_to_string(rule("latin-4x4")).unwrap();
    let loaded = browser.wait_for(
        "the example's text",
        "const t = document.getElementById('rules').value; \
         return t.includes('4x4 Latin square') ? t : null;",
    );
    assert_eq!(loaded, text.as_str());
    browser.click("#run");
    assert_eq!(browser.wait_for("the run's end", FINISHED), "done");
    // The solutions, as the page shows them, checked independently.
    let grids = browser.eval(
        "return [...document.querySelectorAll('#solutions .sol')].map(s => \
         JSON.parse(s.dataset.grid).map(r => r.join('')).join(''));",
    );
    let grids: Vec<String> = serde_json::from_value(grids).unwrap();
    let file = rule_file("latin-4x4");
    let givens = file.variant.parse_givens(&start_givens(&text));
    check_all(&file.variant, &givens, &grids).unwrap();
    assert_eq!(grids.len() as u64, brute::count(&file.variant, &givens));
    let shown = browser
        .eval("return document.querySelector('#stats [data-stat=\"solutions\"]').textContent;");
    assert_eq!(shown, grids.len().to_string().as_str());
    let pictures = browser.eval(
        "return ['#board svg', '#solutions svg', '#space-picture svg'].map(s => \
         document.querySelectorAll(s).length);",
    );
    assert_eq!(pictures, json!([1, grids.len(), 1]));
    let png = browser.screenshot();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000);
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("playground.png");
    std::fs::write(&shot, &png).unwrap();
    eprintln!("the playground after a run: {}", shot.display());

    // A typo: the run fails, and the problem is listed and marked at its place.
    browser.eval(
        "const r = document.getElementById('rules'); \
         r.value = r.value.replace('rule place', 'rulle place'); \
         r.dispatchEvent(new Event('input'));",
    );
    browser.click("#run");
    assert_eq!(browser.wait_for("the run's end", FINISHED), "failed");
    let typo = text.replacen("rule place", "rulle place", 1);
    let line = typo[..typo.find("place(").unwrap()].matches('\n').count() + 1;
    let problem = browser.eval(
        "const li = document.querySelector('#problems li.error'); \
         return li ? li.dataset.where + ' ' + li.textContent : null;",
    );
    assert!(
        problem
            .as_str()
            .unwrap()
            .starts_with(&format!("rules {line}:7 ")),
        "{problem}"
    );
    let marked = browser.eval(
        "return [...document.querySelectorAll('#marks mark.error')].map(m => m.textContent);",
    );
    assert_eq!(marked, json!(["place"]));
    let gutter = browser.eval("return document.querySelector('#gutter .err').textContent;");
    assert_eq!(gutter, line.to_string().as_str());
}
