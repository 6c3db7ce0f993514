// cqlindex serve: the page. Plain JavaScript, no build step, nothing from the internet: every
// request goes to this server's /api (see cqlindex/serve/app.py for the routes).
"use strict";

const $ = (id) => document.getElementById(id);
const PAGE = 50;
const NAGS = { 1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!", 10: "=", 13: "∞", 14: "+=", 15: "=+", 16: "±", 17: "∓", 18: "+-", 19: "-+" };
const state = { offset: 0, sort: "order", desc: false, token: null, last: null, game: null, flip: false };

function text(tag, content, cls) {
  const el = document.createElement(tag);
  if (content !== undefined && content !== null) el.textContent = String(content);
  if (cls) el.className = cls;
  return el;
}

function token() { return Math.random().toString(36).slice(2) + Date.now().toString(36); }

async function api(path, params) {
  const url = "/api/" + path + (params ? "?" + new URLSearchParams(params) : "");
  const response = await fetch(url);
  const data = await response.json();
  if (!response.ok) { const e = new Error(data.error.message); e.info = data.error; throw e; }
  return data;
}

// ---- the query and its options ----
function queryParams() {
  const p = { db: $("db").value || "0", cql: $("cql").value };
  if ($("variations").checked) p.variations = "1";
  if ($("flipcolor").checked) p.flipcolor = "1";
  for (const name of ["gamenumber", "matchcount", "player", "year", "result", "timeout"]) {
    const v = $(name).value.trim();
    if (v) p[name] = v;
  }
  return p;
}

function showError(info) {
  const box = $("error");
  box.hidden = false;
  box.textContent = info.rendered || info.message;
  if (info.line && info.col) {  // put the caret at the spot in the box itself
    const lines = $("cql").value.split("\n");
    let at = 0;
    for (let i = 0; i < info.line - 1 && i < lines.length; i++) at += lines[i].length + 1;
    at += info.col - 1;
    $("cql").setSelectionRange(at, at + (info.length || 1));
  }
}

async function run(offset) {
  if (state.token) cancel();
  state.offset = offset || 0;
  const params = Object.assign(queryParams(), { offset: state.offset, limit: PAGE, sort: state.sort, desc: state.desc ? "1" : "0" });
  const mine = state.token = token();
  params.token = mine;
  $("status").textContent = "running…";
  $("cancel").disabled = false;
  try {
    const data = await api("query", params);
    if (state.token !== mine) return;
    $("error").hidden = true;
    state.last = { params: queryParams(), data };
    showResults(data);
    $("status").textContent = "";
  } catch (e) {
    if (state.token !== mine) return;
    if (e.info && e.info.kind === "Cancelled") $("status").textContent = "cancelled";
    else if (e.info && e.info.kind === "QueryTimeout") { $("status").textContent = ""; showError(e.info); }
    else { $("status").textContent = ""; showError(e.info || { message: String(e) }); }
  } finally {
    if (state.token === mine) { state.token = null; $("cancel").disabled = true; }
  }
}

function cancel() {
  if (!state.token) return;
  fetch("/api/cancel?" + new URLSearchParams({ token: state.token }), { method: "POST" });
  state.token = null;
  $("cancel").disabled = true;
  $("status").textContent = "cancelled";
}

const COLUMNS = [["gamenumber", "#"], ["white", "White"], ["black", "Black"], ["event", "Event"], ["year", "Year"],
  ["result", "Result"], [null, "First match"], ["positions", "Positions"]];

function showResults(data) {
  $("results").hidden = false;
  $("totals").textContent = `${data.games} games, ${data.positions} positions (${data.seconds} s)`;
  const head = $("games").tHead.rows[0];
  head.replaceChildren();
  const columns = COLUMNS.concat(data.sort_labels.map((label, i) => ["sort" + i, label]));
  for (const [key, label] of columns) {
    const th = text("th", label);
    if (key) {
      th.dataset.sort = key;
      if (state.sort === key) th.className = "sorted" + (state.desc ? " desc" : "");
      th.onclick = () => { state.desc = state.sort === key ? !state.desc : false; state.sort = key; run(0); };
    }
    head.appendChild(th);
  }
  const body = $("games").tBodies[0];
  body.replaceChildren();
  for (const row of data.list) {
    const tr = document.createElement("tr");
    tr.dataset.game = row.gamenumber;
    const first = text("td", row.first_match, row.first_match.includes("variation") ? "variation" : "");
    const counted = row.positions + (row.in_variations ? ` (${row.in_variations} in variations)` : "");
    for (const cell of [row.gamenumber, row.white, row.black, row.event, row.year, row.result]) tr.appendChild(text("td", cell));
    tr.appendChild(first);
    tr.appendChild(text("td", counted));
    for (const v of row.sort_values) tr.appendChild(text("td", v));
    tr.onclick = () => openGame(row.gamenumber);
    body.appendChild(tr);
  }
  const end = Math.min(data.offset + data.list.length, data.games);
  $("range").textContent = data.games ? `games ${data.offset + 1}–${end} of ${data.games}` : "no game matched";
  $("prev").disabled = data.offset === 0;
  $("next").disabled = end >= data.games;
  for (const fmt of ["pgn", "csv", "json"]) {
    $("dl-" + fmt).href = "/api/download?" + new URLSearchParams(Object.assign({}, state.last.params, { format: fmt }));
    $("dl-" + fmt).setAttribute("download", "cqlindex-result." + fmt);
  }
}

async function explain() {
  const box = $("explained");
  try {
    const data = await api("explain", queryParams());
    $("error").hidden = true;
    box.replaceChildren(text("p", data.exact ? "Every filter is decided in SQL: the rows are the matches."
      : "SQL narrows; the evaluator confirms the candidates."));
    const table = document.createElement("table");
    for (const f of data.filters) {
      const tr = document.createElement("tr");
      tr.append(text("td", `${f.line}:${f.col} ${f.cql}`), text("td", f.where, "verdict-" + f.verdict));
      table.appendChild(tr);
    }
    box.append(table, text("pre", data.sql));
    box.hidden = false;
  } catch (e) { showError(e.info || { message: String(e) }); }
}

// ---- the game viewer ----
async function openGame(number) {
  const db = $("db").value || "0";
  const game = await api("games/" + number, { db });
  const matched = new Set((state.last ? state.last.data.records : []).filter((r) => r.gamenumber === number).map((r) => r.positionid));
  const byId = new Map(game.nodes.map((n) => [n.positionid, n]));
  const children = new Map();
  for (const n of game.nodes) {
    if (n.parent === null) continue;
    if (!children.has(n.parent)) children.set(n.parent, []);
    children.get(n.parent).push(n);
  }
  for (const list of children.values()) list.sort((a, b) => a.child_index - b.child_index);
  state.game = { number, game, byId, children, matched: [...matched].sort((a, b) => a - b), current: 0 };
  for (const tr of $("games").tBodies[0].rows) tr.classList.toggle("open", tr.dataset.game === String(number));
  $("viewer").hidden = false;
  $("game-title").textContent = `${number}. ${game.white || "?"} – ${game.black || "?"} ${game.result || ""}`;
  $("game-tags").textContent = [game.event, game.site, game.date].filter(Boolean).join(", ");
  renderMoves();
  go(state.game.matched.length ? state.game.matched[0] : 0);
}

function moveLabel(node, numbered) {
  if (!node.san) return "";
  const nag = node.nags.map((n) => NAGS[n] || ` $${n}`).join("");
  if (!node.wtm) return `${node.movenumber}. ${node.san}${nag}`;
  return (numbered ? `${node.movenumber - 1}... ` : "") + node.san + nag;
}

function renderMoves() {
  const g = state.game;
  const box = $("moves");
  box.replaceChildren();
  const matched = new Set(g.matched);
  const add = (el) => { box.appendChild(el); box.appendChild(document.createTextNode(" ")); };
  const move = (node, numbered) => {
    if (node.comment_before) add(text("span", `{${node.comment_before}}`, "comment"));
    const span = text("span", moveLabel(node, numbered), "mv" + (matched.has(node.positionid) ? " match" : ""));
    span.dataset.id = node.positionid;
    span.onclick = () => go(node.positionid);
    add(span);
    if (node.comment) add(text("span", `{${node.comment}}`, "comment"));
  };
  // As PGN nests them: the main move, then each variation in parentheses, then the main line goes on.
  const line = (parent, numbered) => {
    let at = parent;
    while (g.children.has(at.positionid)) {
      const [main, ...others] = g.children.get(at.positionid);
      move(main, numbered);
      for (const v of others) {
        add(text("span", "(", "var"));
        move(v, true);
        line(v, false);
        add(text("span", ")", "var"));
      }
      numbered = others.length > 0 || !!main.comment;
      at = main;
    }
  };
  const root = g.byId.get(0);
  if (root && root.comment) add(text("span", `{${root.comment}}`, "comment"));
  line(root, true);
}

function go(id) {
  const g = state.game;
  if (!g || !g.byId.has(id)) return;
  g.current = id;
  const node = g.byId.get(id);
  const params = { fen: node.fen, flip: state.flip ? "1" : "0", size: 360 };
  if (node.move_from && node.move_to) params.move = node.move_from + node.move_to;
  $("board").src = "/api/board.svg?" + new URLSearchParams(params);
  const isMatch = g.matched.includes(id);
  $("where").textContent = (node.san ? moveLabel(node, true) : "start") + (node.mainline ? "" : " (variation)") +
    (isMatch ? " — match" : "");
  $("where").className = isMatch ? "match" : "";
  for (const span of $("moves").querySelectorAll(".mv")) {
    const on = span.dataset.id === String(id);
    span.classList.toggle("current", on);
    if (on) keepInView(span);
  }
}

function keepInView(span) {  // scroll the move list only, never the page
  const box = $("moves");
  if (span.offsetTop < box.scrollTop || span.offsetTop + span.offsetHeight > box.scrollTop + box.clientHeight) {
    box.scrollTop = span.offsetTop - box.clientHeight / 2;
  }
}

function step(how) {
  const g = state.game;
  if (!g) return;
  const node = g.byId.get(g.current);
  if (how === "back" && node.parent !== null) go(node.parent);
  if (how === "forward" && g.children.has(node.positionid)) go(g.children.get(node.positionid)[0].positionid);
  if (how === "first") go(0);
  if (how === "last") { let at = node; while (g.children.has(at.positionid)) at = g.children.get(at.positionid)[0]; go(at.positionid); }
  if (how === "next-match") { const n = g.matched.find((m) => m > g.current); if (n !== undefined) go(n); }
  if (how === "prev-match") { const p = g.matched.filter((m) => m < g.current).pop(); if (p !== undefined) go(p); }
  if (how === "flip") { state.flip = !state.flip; go(g.current); }
}

// ---- a folder of .cql files as one table ----
async function runFiles(files) {
  const body = $("folder-table").tBodies[0];
  body.replaceChildren();
  const list = [...files].filter((f) => f.name.toLowerCase().endsWith(".cql")).sort((a, b) => a.name.localeCompare(b.name));
  for (const file of list) {
    const source = await file.text();
    const tr = document.createElement("tr");
    const cells = [text("td", file.webkitRelativePath || file.name), text("td", "…"), text("td", ""), text("td", "")];
    tr.append(...cells);
    tr.onclick = () => { showTab("cql"); $("cql").value = source; run(0); };
    body.appendChild(tr);
    try {
      const data = await api("query", { db: $("db").value || "0", cql: source, name: file.name, limit: 0 });
      cells[1].textContent = data.games; cells[2].textContent = data.positions; cells[3].textContent = data.seconds;
    } catch (e) {
      cells[1].textContent = "error"; cells[2].textContent = (e.info && e.info.message) || String(e);
    }
  }
}

// ---- SQL ----
async function runSql() {
  $("sql-status").textContent = "running…";
  try {
    const data = await api("sql", { db: $("db").value || "0", sql: $("sql").value, limit: 1000 });
    $("sql-error").hidden = true;
    const table = $("sql-table");
    table.replaceChildren();
    const head = document.createElement("tr");
    for (const c of data.columns) head.appendChild(text("th", c));
    table.appendChild(head);
    for (const row of data.rows) {
      const tr = document.createElement("tr");
      for (const v of row) tr.appendChild(text("td", v === null ? "NULL" : v));
      table.appendChild(tr);
    }
    $("sql-status").textContent = `${data.total} rows` + (data.total > data.rows.length ? ` (first ${data.rows.length} shown)` : "");
  } catch (e) {
    $("sql-status").textContent = "";
    $("sql-error").hidden = false;
    $("sql-error").textContent = (e.info && e.info.message) || String(e);
  }
}

function showTab(name) {
  for (const b of document.querySelectorAll(".tab")) b.classList.toggle("active", b.dataset.tab === name);
  for (const t of ["cql", "folder", "sql"]) $("tab-" + t).hidden = t !== name;
}

// ---- wiring ----
let typing = null;
function refine() {  // run as the query is refined, once typing pauses
  clearTimeout(typing);
  typing = setTimeout(() => { if ($("cql").value.trim() || $("player").value.trim() || $("year").value.trim() || $("result").value) run(0); }, 400);
}

async function start() {
  const data = await api("databases");
  for (const d of data.databases) {
    const option = text("option", `${d.name} (${d.games} games)`);
    option.value = d.db;
    $("db").appendChild(option);
  }
  $("cql").addEventListener("input", refine);
  for (const id of ["variations", "flipcolor", "result", "db"]) $(id).addEventListener("change", refine);
  for (const id of ["gamenumber", "matchcount", "player", "year", "timeout"]) $(id).addEventListener("input", refine);
  $("run").onclick = () => run(0);
  $("cancel").onclick = cancel;
  $("explain").onclick = explain;
  $("prev").onclick = () => run(Math.max(0, state.offset - PAGE));
  $("next").onclick = () => run(state.offset + PAGE);
  $("sql-run").onclick = runSql;
  $("folder").onchange = (e) => runFiles(e.target.files);
  $("files").onchange = (e) => runFiles(e.target.files);
  $("open").onchange = async (e) => { if (e.target.files[0]) { $("cql").value = await e.target.files[0].text(); run(0); } };
  for (const b of document.querySelectorAll(".tab")) b.onclick = () => showTab(b.dataset.tab);
  for (const id of ["first", "back", "forward", "last", "prev-match", "next-match", "flip"]) $(id).onclick = () => step(id);
  const box = $("cql");
  box.addEventListener("dragover", (e) => { e.preventDefault(); box.classList.add("drop"); });
  box.addEventListener("dragleave", () => box.classList.remove("drop"));
  box.addEventListener("drop", async (e) => {
    e.preventDefault(); box.classList.remove("drop");
    const file = e.dataTransfer.files[0];
    if (file) { box.value = await file.text(); run(0); }
  });
  document.addEventListener("keydown", (e) => {
    if (["TEXTAREA", "INPUT", "SELECT"].includes(e.target.tagName)) return;
    const keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last", ArrowUp: "prev-match", ArrowDown: "next-match", f: "flip" };
    if (keys[e.key]) { e.preventDefault(); step(keys[e.key]); }
  });
}

start();
