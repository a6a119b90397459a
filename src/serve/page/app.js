// The playground page: edits a rule file and puzzles, starts a run on the server, and shows
// the JSON lines the run writes as they come (see `grafter serve` in the README).
"use strict";

const $ = (id) => document.getElementById(id);

const ui = {
  example: $("example"), run: $("run"), stop: $("stop"), status: $("status"),
  rules: $("rules"), marks: $("marks"), gutter: $("gutter"), cursor: $("cursor"),
  origin: $("origin"), problems: $("problems"), problemCount: $("problem-count"),
  puzzles: $("puzzles"), puzzle: $("puzzle"), expand: $("expand"),
  maxSolutions: $("max-solutions"), maxStates: $("max-states"), timeout: $("timeout"),
  space: $("space"), spaceStates: $("space-states"), caps: $("caps"),
  stats: $("stats"), plan: $("plan"), notes: $("notes"),
  board: $("board"), boardTitle: $("board-title"),
  solutions: $("solutions"), solutionCount: $("solution-count"),
  spacePicture: $("space-picture"), spaceTitle: $("space-title"), spaceNote: $("space-note"),
  spaceOpen: $("space-open"),
};

/// Solutions shown on the page at most; later ones are counted.
const SHOWN = 500;
const STORE = "grafter-playground";

let examples = [];
let loadedText = "";     // the example's text as loaded, to tell edits from it
let current = null;      // the run going: {id, stopping}
let diagnostics = [];    // the last run's `diagnostic` lines
let solutionsSeen = 0;

// ---- The editor: line numbers and marks kept in step with the text. ----

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}

/// The string index of 1-based `line` and `col` (in characters, as grafter counts) in `text`.
function offsetOf(text, line, col) {
  let at = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf("\n", at);
    if (nl < 0) return text.length;
    at = nl + 1;
  }
  const end = text.indexOf("\n", at);
  const lineText = text.slice(at, end < 0 ? text.length : end);
  const chars = Array.from(lineText).slice(0, Math.max(0, col - 1)).join("");
  return at + Math.min(chars.length, lineText.length);
}

/// The ranges of `text` the diagnostics of the rule file mark: [start, end, kind].
function markedRanges(text) {
  const ranges = [];
  const add = (p, kind) => {
    if (p.line == null) return;
    let start = offsetOf(text, p.line, p.col);
    let end = offsetOf(text, p.end_line, p.end_col);
    if (end <= start) end = start; // empty: widened below
    ranges.push([start, end, kind]);
  };
  for (const d of diagnostics) {
    if (d.file !== "rules") continue;
    add(d, d.severity);
    for (const l of d.labels || []) add(l, "label");
  }
  return ranges;
}

const RANK = { label: 1, warning: 2, error: 3, here: 4 };

function renderMarks(highlight) {
  const text = ui.rules.value;
  const ranges = markedRanges(text);
  if (highlight) ranges.push([highlight[0], highlight[1], "here"]);
  // An empty range marks the character it stands before, or a space past a line's end.
  const tails = new Map();
  for (const r of ranges) {
    if (r[1] > r[0]) continue;
    if (r[0] < text.length && text[r[0]] !== "\n") r[1] = r[0] + 1;
    else tails.set(r[0], r[2]);
  }
  const cuts = new Set([0, text.length]);
  for (const [s, e] of ranges) { cuts.add(s); cuts.add(e); }
  for (const t of tails.keys()) cuts.add(t);
  const points = [...cuts].sort((a, b) => a - b);
  let html = "";
  for (let i = 0; i < points.length; i++) {
    const a = points[i];
    if (tails.has(a)) html += `<mark class="${tails.get(a)}"> </mark>`;
    const b = points[i + 1];
    if (b === undefined) break;
    let kind = null;
    for (const [s, e, k] of ranges) {
      if (s <= a && b <= e && e > s && (!kind || RANK[k] > RANK[kind])) kind = k;
    }
    const piece = escapeHtml(text.slice(a, b));
    html += kind ? `<mark class="${kind}">${piece}</mark>` : piece;
  }
  // A last line and a space, so the layer scrolls as far as the text area.
  ui.marks.innerHTML = html + "\n ";
  renderGutter(text);
  syncScroll();
}

function renderGutter(text) {
  const lines = text.split("\n").length;
  const byLine = new Map();
  for (const d of diagnostics) {
    if (d.file !== "rules" || d.line == null) continue;
    const was = byLine.get(d.line);
    const severity = was && was.severity === "error" ? "error" : d.severity;
    const messages = was ? was.messages.concat(d.message) : [d.message];
    byLine.set(d.line, { severity, messages });
  }
  let html = "";
  for (let n = 1; n <= lines; n++) {
    const mark = byLine.get(n);
    html += mark
      ? `<span class="${mark.severity === "error" ? "err" : "warn"}" title="${escapeHtml(mark.messages.join("\n"))}">${n}</span>\n`
      : `${n}\n`;
  }
  ui.gutter.innerHTML = html + " ";
}

function syncScroll() {
  ui.marks.scrollTop = ui.rules.scrollTop;
  ui.marks.scrollLeft = ui.rules.scrollLeft;
  ui.gutter.scrollTop = ui.rules.scrollTop;
}

function showCursor() {
  const t = ui.rules.value.slice(0, ui.rules.selectionStart);
  const line = t.split("\n").length;
  const col = Array.from(t.slice(t.lastIndexOf("\n") + 1)).length + 1;
  ui.cursor.textContent = `${line}:${col}`;
}

/// Selects [start, end) of a text area and scrolls it into view.
function select(area, start, end) {
  area.focus();
  area.setSelectionRange(start, Math.max(start, end));
  const line = area.value.slice(0, start).split("\n").length;
  const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 20;
  area.scrollTop = Math.max(0, (line - 4) * lineHeight);
  if (area === ui.rules) { renderMarks([start, Math.max(start + 1, end)]); showCursor(); }
}

ui.rules.addEventListener("input", () => {
  // The marks belong to the text they were found in: an edit clears them.
  diagnostics = diagnostics.filter((d) => d.file !== "rules");
  renderMarks();
  ui.origin.textContent = ui.rules.value === loadedText ? ui.origin.dataset.path || "" : "edited";
  save();
});
ui.rules.addEventListener("scroll", syncScroll);
for (const ev of ["keyup", "click", "select"]) ui.rules.addEventListener(ev, showCursor);
ui.rules.addEventListener("keydown", (e) => {
  if (e.key === "Tab" && !e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey) {
    e.preventDefault();
    ui.rules.setRangeText("  ", ui.rules.selectionStart, ui.rules.selectionEnd, "end");
    ui.rules.dispatchEvent(new Event("input"));
  }
});
ui.puzzles.addEventListener("input", () => { ui.puzzles.classList.remove("bad"); save(); });
document.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); }
  if (e.key === "Escape" && current) stop();
});

// ---- Examples, the server's caps, and what the page keeps between visits. ----

function save() {
  try {
    localStorage.setItem(STORE, JSON.stringify({
      rules: ui.rules.value, puzzles: ui.puzzles.value, example: ui.example.value,
      loaded: loadedText === ui.rules.value,
    }));
  } catch (_) { /* storage may be off: nothing is kept */ }
}

function loadExample(path) {
  const ex = examples.find((e) => e.path === path);
  if (!ex) return;
  if (ui.rules.value !== loadedText && ui.rules.value.trim() !== ""
      && !confirm("Replace your edits with " + ex.path + "?")) {
    ui.example.value = "";
    return;
  }
  ui.rules.value = ex.text;
  loadedText = ex.text;
  ui.origin.textContent = ex.path;
  ui.origin.dataset.path = ex.path;
  ui.puzzles.value = "";
  diagnostics = [];
  renderMarks();
  showProblems();
  ui.rules.scrollTop = 0;
  save();
}

async function start() {
  try {
    const caps = await (await fetch("/api/caps")).json();
    ui.maxSolutions.max = caps.max_solutions;
    ui.maxStates.max = caps.max_states;
    ui.timeout.max = caps.timeout;
    ui.spaceStates.max = caps.space_states;
    ui.caps.textContent = `Each run is capped by the server at ${caps.timeout} s, `
      + `${fmt(caps.max_states)} states, ${fmt(caps.max_solutions)} solutions and `
      + `${Math.round(caps.max_memory / 1048576)} MiB, ${caps.runs} run${caps.runs === 1 ? "" : "s"} at once; `
      + `the first ${caps.boards} solutions are drawn.`;
  } catch (_) { ui.caps.textContent = ""; }
  examples = await (await fetch("/api/examples")).json();
  ui.example.innerHTML = '<option value="">choose an example…</option>'
    + examples.map((e) => `<option value="${escapeHtml(e.path)}" title="${escapeHtml(e.about)}">${escapeHtml(e.name)}</option>`).join("");
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem(STORE) || "null"); } catch (_) { kept = null; }
  if (kept && kept.rules) {
    const ex = examples.find((e) => e.path === kept.example);
    ui.rules.value = kept.rules;
    ui.puzzles.value = kept.puzzles || "";
    ui.example.value = ex ? ex.path : "";
    loadedText = ex && kept.loaded ? ex.text : "";
    ui.origin.dataset.path = ex ? ex.path : "";
    ui.origin.textContent = ex && kept.loaded ? ex.path : "edited";
  } else {
    const first = examples.find((e) => e.name === "sudoku-4x4-centre") || examples[0];
    if (first) { ui.example.value = first.path; loadExample(first.path); }
  }
  renderMarks();
  ui.example.dataset.ready = "yes";
}

ui.example.addEventListener("change", () => loadExample(ui.example.value));

// ---- A run: start it, read its lines until it ends, stop it. ----

const fmt = (n) => Number(n).toLocaleString("en-US");

function setStatus(text, kind) {
  ui.status.textContent = text;
  ui.status.className = "status " + kind;
  ui.status.dataset.state = kind;
}

function number(input) {
  const v = parseFloat(input.value);
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

function clearResults() {
  diagnostics = [];
  solutionsSeen = 0;
  renderMarks();
  showProblems();
  ui.puzzles.classList.remove("bad");
  ui.stats.innerHTML = "";
  ui.plan.textContent = "";
  ui.notes.textContent = "";
  ui.board.innerHTML = "";
  ui.boardTitle.textContent = "";
  ui.solutions.innerHTML = "";
  ui.solutionCount.textContent = "";
  ui.spacePicture.innerHTML = "";
  ui.spaceTitle.textContent = "";
  ui.spaceNote.textContent = "";
  ui.spaceOpen.hidden = true;
}

async function run() {
  if (current) return;
  clearResults();
  const body = {
    rules: ui.rules.value,
    puzzles: ui.puzzles.value,
    puzzle: Math.max(1, Math.floor(number(ui.puzzle) || 1)),
    expand: ui.expand.value,
    max_solutions: number(ui.maxSolutions) && Math.floor(number(ui.maxSolutions)),
    max_states: number(ui.maxStates) && Math.floor(number(ui.maxStates)),
    timeout: number(ui.timeout),
    space: ui.space.checked,
    space_states: number(ui.spaceStates) && Math.floor(number(ui.spaceStates)),
  };
  ui.run.disabled = true;
  setStatus("starting…", "running");
  let reply;
  try {
    const r = await fetch("/api/runs", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    reply = await r.json();
    if (!r.ok) throw new Error(reply.error || r.statusText);
  } catch (e) {
    setStatus("not started: " + e.message, "failed");
    ui.run.disabled = false;
    return;
  }
  current = { id: reply.id, stopping: false, summary: null, end: null };
  ui.stop.disabled = false;
  let next = 0;
  try {
    for (;;) {
      const r = await fetch(`/api/runs/${current.id}?after=${next}`);
      const batch = await r.json();
      if (!r.ok) throw new Error(batch.error || r.statusText);
      for (const line of batch.lines) take(line);
      next = batch.next;
      if (batch.done) break;
    }
    finish();
  } catch (e) {
    setStatus("lost the run: " + e.message, "failed");
  }
  current = null;
  ui.run.disabled = false;
  ui.stop.disabled = true;
}

async function stop() {
  if (!current || current.stopping) return;
  current.stopping = true;
  ui.stop.disabled = true;
  setStatus("stopping…", "running");
  try { await fetch(`/api/runs/${current.id}/stop`, { method: "POST" }); } catch (_) { /* the run ends anyway */ }
}

ui.run.addEventListener("click", run);
ui.stop.addEventListener("click", stop);

/// One line of the run.
function take(line) {
  switch (line.type) {
    case "diagnostic": diagnostics.push(line); renderMarks(); showProblems(); break;
    case "plan":
      ui.plan.textContent = `${line.engine} engine · expand ${line.expand}`;
      if (line.fallback) addNote(`--expand focus falls back to all: ${line.fallback}`);
      break;
    case "puzzle": break;
    case "board": ui.boardTitle.textContent = line.title; ui.board.innerHTML = line.svg; break;
    case "progress":
      showLive(line);
      if (!current.stopping) {
        setStatus(`running · ${line.seconds.toFixed(1)} s · ${fmt(line.states)} states · ${fmt(line.solutions)} solutions`, "running");
      }
      break;
    case "solution": addSolution(line); break;
    case "summary": current.summary = line; showSummary(line); break;
    case "space": showSpace(line); break;
    case "end": current.end = line; break;
    default: break;
  }
}

function addNote(text) {
  ui.notes.textContent = (ui.notes.textContent ? ui.notes.textContent + "\n" : "") + text;
}

function addSolution(s) {
  solutionsSeen++;
  ui.solutionCount.textContent = `${fmt(solutionsSeen)} so far`;
  if (solutionsSeen > SHOWN) {
    let more = ui.solutions.querySelector(".more");
    if (!more) { more = document.createElement("p"); more.className = "more"; ui.solutions.append(more); }
    more.textContent = `and ${fmt(solutionsSeen - SHOWN)} more, not shown`;
    return;
  }
  const card = document.createElement("figure");
  card.className = "sol";
  card.dataset.solution = s.solution;
  if (s.grid) card.dataset.grid = JSON.stringify(s.grid);
  const head = document.createElement("h3");
  head.textContent = `solution ${s.solution}`;
  card.append(head);
  if (s.svg) {
    const pic = document.createElement("div");
    pic.innerHTML = s.svg;
    card.append(pic);
  } else {
    const pre = document.createElement("pre");
    pre.textContent = s.grid
      ? s.grid.map((row) => row.map((v) => v == null ? " " : v).join(" ")).join("\n")
      : (s.nodes || []).join("\n");
    card.append(pre);
  }
  ui.solutions.append(card);
}

/// A time in seconds as people read it.
function duration(seconds) {
  if (seconds >= 1) return `${seconds.toFixed(2)} s`;
  return `${(seconds * 1000).toFixed(seconds < 0.01 ? 2 : 0)} ms`;
}

/// The statistics as tiles: [name, value, class].
function showTiles(items) {
  ui.stats.innerHTML = items.map(([k, v, cls]) =>
    `<div><dt>${k}</dt><dd${cls ? ` class="${cls}"` : ""} data-stat="${k}">${escapeHtml(String(v))}</dd></div>`).join("");
}

/// The counts so far, while the run goes.
function showLive(p) {
  showTiles([
    ["solutions", fmt(p.solutions)], ["states", fmt(p.states)], ["time", duration(p.seconds)],
  ]);
}

function showSummary(s) {
  const items = [
    ["solutions", fmt(s.solutions)],
    ["states", fmt(s.states)],
    ["transitions", fmt(s.transitions)],
    ["dead ends", fmt(s.dead_ends)],
    ["complete", s.complete ? "yes" : "no", s.complete ? "yes" : "no"],
    ["time", duration(s.seconds)],
  ];
  if (s.stop) items.push(["stopped by", s.stop, "no word"]);
  showTiles(items);
  ui.plan.textContent = `${s.engine} engine · expand ${s.expand} · ${s.order}`;
  if (s.fallback && !ui.notes.textContent.includes(s.fallback)) addNote(`--expand focus falls back to all: ${s.fallback}`);
}

function showSpace(sp) {
  ui.spaceTitle.textContent = `${fmt(sp.states)} states, ${fmt(sp.transitions)} transitions, expand ${sp.expand}`;
  ui.spaceNote.textContent = sp.note || "";
  ui.spacePicture.innerHTML = sp.svg;
  if (ui.spaceOpen.href) URL.revokeObjectURL(ui.spaceOpen.href);
  ui.spaceOpen.href = URL.createObjectURL(new Blob([sp.svg], { type: "image/svg+xml" }));
  ui.spaceOpen.hidden = false;
}

/// The run ended: say how.
function finish() {
  showProblems();
  const s = current.summary;
  const end = current.end;
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const n = s ? s.solutions : solutionsSeen;
  ui.solutionCount.textContent = s ? `${fmt(n)}${s.complete ? "" : " found"}` : ui.solutionCount.textContent;
  if (s && s.solutions === 0 && !ui.solutions.children.length) {
    ui.solutions.innerHTML = `<p class="more">no solution${s.complete ? "" : " found before the run stopped"}</p>`;
  }
  if (end && end.ended_by) {
    diagnostics.push({ severity: "limit", file: null, line: null, message: end.message });
    showProblems();
    setStatus(`ended by the server: ${end.message}`, "failed");
  } else if (errors) {
    setStatus(`${errors} error${errors === 1 ? "" : "s"}: see Problems`, "failed");
  } else if (s && s.complete) {
    setStatus(`done: ${fmt(n)} solution${n === 1 ? "" : "s"}, ${fmt(s.states)} states in ${duration(s.seconds)}`, "done");
  } else if (s) {
    setStatus(`stopped (${s.stop}): ${fmt(n)} solution${n === 1 ? "" : "s"} so far, ${fmt(s.states)} states`, "stopped");
  } else {
    setStatus("ended", "done");
  }
  if (!ui.spacePicture.innerHTML && s) {
    ui.spaceNote.textContent = ui.space.checked
      ? "Not drawn: the run was stopped or out of time."
      : "Not drawn: tick “State space” to draw it.";
  }
}

/// The problems list: each diagnostic, where it is, what to do; a click selects its place.
function showProblems() {
  ui.problems.innerHTML = "";
  const shown = diagnostics;
  const errors = shown.filter((d) => d.severity === "error").length;
  const warnings = shown.filter((d) => d.severity === "warning").length;
  ui.problemCount.textContent = shown.length
    ? [errors && `${errors} error${errors === 1 ? "" : "s"}`, warnings && `${warnings} warning${warnings === 1 ? "" : "s"}`]
      .filter(Boolean).join(", ") || ""
    : current ? "none" : "none yet: run to check";
  for (const d of shown) {
    const li = document.createElement("li");
    li.className = d.severity;
    const where = d.line != null ? `${d.file} ${d.line}:${d.col}` : d.file || "server";
    li.innerHTML = `<span class="kind">${d.severity === "limit" ? "ended" : d.severity}</span>`
      + `<span class="where">${escapeHtml(where)}</span><span class="message">${escapeHtml(d.message)}</span>`;
    li.dataset.where = where;
    const extra = [...(d.notes || []).map((n) => "note: " + n), ...(d.help || []).map((h) => "help: " + h)];
    if (extra.length) {
      const ul = document.createElement("ul");
      ul.className = "extra";
      for (const x of extra) { const item = document.createElement("li"); item.textContent = x; ul.append(item); }
      li.append(ul);
    }
    if (d.text) {
      const details = document.createElement("details");
      details.innerHTML = "<summary>as grafter check prints it</summary>";
      const pre = document.createElement("pre");
      pre.textContent = d.text;
      details.append(pre);
      li.append(details);
    }
    if (d.file === "puzzles") ui.puzzles.classList.add("bad");
    if (d.line != null) {
      li.addEventListener("click", (e) => {
        if (e.target.closest("details")) return;
        const area = d.file === "puzzles" ? ui.puzzles : ui.rules;
        const text = area.value;
        select(area, offsetOf(text, d.line, d.col), offsetOf(text, d.end_line, d.end_col));
      });
    }
    ui.problems.append(li);
  }
}

start().catch((e) => setStatus("could not load the page's data: " + e.message, "failed"));
