#include "serve/dashboard_assets.h"

#include "report/html_page.h"
#include "report/xml_escape.h"

namespace pacer {

std::string dashboard_page_html(const std::string& kind, int64_t id, int poll_ms) {
  // kind is one of the route's literals and id a number: nothing from the request reaches the page.
  const std::string title = kind == "study" ? "Pacer: study " + std::to_string(id)
                            : kind == "trial" ? "Pacer: trial " + std::to_string(id)
                                              : "Pacer: studies and leaderboard";
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + title +
         "</title><meta name=\"viewport\" content=\"width=device-width\">"
         "<link rel=\"stylesheet\" href=\"/assets/dashboard.css\">"
         "<script src=\"/assets/dashboard.js\" defer></script></head>"
         "<body data-page=\"" + kind + "\" data-id=\"" + std::to_string(id) + "\" data-poll=\"" +
         std::to_string(poll_ms) +
         "\"><header><a href=\"/\">Pacer</a> <span id=\"store\"></span> <span id=\"status\">loading...</span></header>"
         "<main id=\"main\"><noscript>This page reads the store through its JSON routes (/api/...) and needs "
         "JavaScript; pacer study list and pacer score give the same from the command line.</noscript></main>"
         "</body></html>\n";
}

std::string dashboard_message_page(const std::string& title, const std::string& message) {
  return html_page_head(title) + "<h1>" + xml_escape(title) + "</h1><p>" + xml_escape(message) +
         "</p><p><a href=\"/\">All studies</a></p></body></html>\n";
}

const std::string& dashboard_css() {
  static const std::string css = R"CSS(
body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#234;color:#eee;padding:0.5em 1em;position:sticky;top:0}
header a{color:#fff;font-weight:bold;text-decoration:none;margin-right:1em}
#status{float:right;font-size:90%}
#status.bad{color:#fbb;font-weight:bold}
main{padding:0.5em 1.5em;max-width:1400px}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.5em}
table{border-collapse:collapse;font-size:90%;background:#fff}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;white-space:nowrap}
th{background:#eef;cursor:pointer;user-select:none}
th.sorted-asc::after{content:" \25B2"}th.sorted-desc::after{content:" \25BC"}
td.l,th.l{text-align:left}
tr.best td{background:#fff3d6}tr.running td{background:#eef8ee}tr.bad td{color:#a00}
.progress{background:#ddd;height:10px;width:120px;display:inline-block;vertical-align:middle}
.progress>span{background:#3a6;height:10px;display:block}
.note{color:#666;font-size:90%}
.error{color:#a00;font-weight:bold}
img.chart{max-width:100%;background:#fff;border:1px solid #ddd}
label{margin-right:1em}
)CSS";
  return css;
}

namespace {

// The dashboard's script, data rather than logic: it polls the JSON routes and redraws the page.
constexpr const char kDashboardScript[] = R"JS("use strict";
(function () {
  const body = document.body;
  const kind = body.dataset.page, pageId = body.dataset.id;
  const pollMs = Math.max(1000, Number(body.dataset.poll) || 5000);
  const main = document.getElementById("main");

  // Elements from text only: store strings never become markup.
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null) continue;
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  }
  const num = (v, digits) => v === null || v === undefined ? "" :
      typeof v === "object" ? JSON.stringify(v) :
      typeof v !== "number" ? String(v) : Number.isInteger(v) ? String(v) : v.toPrecision(digits || 4);
  const secs = (v) => v === null || v === undefined ? "inf" : v.toFixed(v < 100 ? 2 : 1) + " s";
  const clock = (unix) => unix ? new Date(unix * 1000).toLocaleTimeString() : "";

  function setStatus(text, bad) {
    const s = document.getElementById("status");
    s.textContent = text;
    s.className = bad ? "bad" : "";
  }
  async function getJson(url) {
    const r = await fetch(url, {cache: "no-store"});
    let j = null;
    try { j = await r.json(); } catch (e) { j = {error: r.status + " " + r.statusText}; }
    if (!r.ok) throw new Error(j.error || r.statusText);
    return j;
  }
  function section(id, title) {
    let s = document.getElementById(id);
    if (!s) {
      s = el("section", {id: id});
      if (title) s.append(el("h2", {text: title}));
      main.append(s);
    }
    return s;
  }
  function slot(parent, id, tag) {
    let e = document.getElementById(id);
    if (!e) { e = el(tag || "div", {id: id}); parent.append(e); }
    return e;
  }

  // A table sorted by a clicked column (again: the other way); the order survives each poll.
  const sortState = {};
  function sortableTable(id, columns, rows, rowClass) {
    const state = sortState[id] || (sortState[id] = {key: null, dir: 1});
    const sorted = rows.slice();
    if (state.key !== null && !columns.some(c => c.key === state.key)) state.key = null;  // the column went away
    if (state.key !== null) {
      const col = columns.find(c => c.key === state.key);
      sorted.sort((a, b) => {
        const x = col.sort ? col.sort(a) : col.value(a), y = col.sort ? col.sort(b) : col.value(b);
        const xm = x === null || x === undefined || x === "", ym = y === null || y === undefined || y === "";
        if (xm || ym) return xm === ym ? 0 : xm ? 1 : -1;  // missing values last either way
        return (x < y ? -1 : x > y ? 1 : 0) * state.dir;
      });
    }
    const table = el("table", {id: id});
    const head = el("tr");
    for (const c of columns) {
      const th = el("th", {class: (c.left ? "l " : "") + (state.key === c.key ? (state.dir > 0 ? "sorted-asc" : "sorted-desc") : ""),
                          title: "sort by " + c.label}, c.label);
      th.addEventListener("click", () => {
        state.dir = state.key === c.key ? -state.dir : 1;
        state.key = c.key;
        render();
      });
      head.append(th);
    }
    table.append(el("thead", {}, head));
    const tbody = el("tbody");
    for (const r of sorted) {
      const tr = el("tr", {class: rowClass ? rowClass(r) : null});
      for (const c of columns) {
        const v = c.cell ? c.cell(r) : num(c.value(r));
        tr.append(el("td", {class: c.left ? "l" : null}, v));
      }
      tbody.append(tr);
    }
    table.append(tbody);
    const old = document.getElementById(id);
    if (old) old.replaceWith(table); else return table;
    return null;
  }
  function place(parent, id, columns, rows, rowClass) {
    const t = sortableTable(id, columns, rows, rowClass);
    if (t) parent.append(t);
  }
  const link = (href, text) => el("a", {href: href}, text);
  function progressBar(done, total) {
    const pct = total > 0 ? 100 * done / total : 0;
    const fill = el("span");
    fill.style.width = pct.toFixed(1) + "%";  // CSSOM, not a style attribute: allowed by the page's policy
    return el("span", {class: "progress", title: done + " of " + total}, fill);
  }

  // ---- index: progress, leaderboard, studies
  let overview = null, leaderboard = null;
  const choice = {part: null, time: "seconds"};
  function renderIndex() {
    if (!overview) return;
    document.getElementById("store").textContent = overview.store;
    const p = overview.progress;
    const top = section("progress", null);
    top.replaceChildren(
        el("h1", {text: "Studies and leaderboard"}),
        el("p", {id: "progress-line"}, progressBar(p.done, p.total), " ",
           p.done + "/" + p.total + " trials done (" + (p.total ? (100 * p.done / p.total).toFixed(1) : "0") + "%" +
           (p.stopped ? "; " + p.stopped + " stopped by racing" : "") + "), " + p.running + " running on " +
           p.workers + " worker" + (p.workers === 1 ? "" : "s") + "; trial time done " + p.trial_time_done +
           (p.done < p.total ? "; ETA " + p.eta + (p.workers ? "" : " at one worker (none at work now)") : "; finished")));
    const lb = section("leaderboard-section", "Leaderboard so far");
    const controls = slot(lb, "controls", "p");
    if (!choice.part || !overview.parts.includes(choice.part)) choice.part = overview.parts[0] || null;
    // Built once: rebuilding them at every poll would close an open dropdown.
    if (!document.getElementById("part")) {
      const partSelect = el("select", {id: "part"});
      partSelect.addEventListener("change", () => { choice.part = partSelect.value; pollLeaderboard().catch(e => setStatus(e.message, true)); });
      const timeSelect = el("select", {id: "time"});
      for (const t of ["seconds", "steps"]) timeSelect.append(el("option", {value: t}, t));
      timeSelect.value = choice.time;
      timeSelect.addEventListener("change", () => { choice.time = timeSelect.value; pollLeaderboard().catch(e => setStatus(e.message, true)); });
      controls.append(el("label", {}, "part ", partSelect), el("label", {}, "time axis ", timeSelect));
    }
    const partSelect = document.getElementById("part");
    const options = [...partSelect.options].map(o => o.value);
    if (options.join() !== overview.parts.join()) {
      partSelect.replaceChildren(...overview.parts.map(part => el("option", {value: part}, part)));
    }
    if (choice.part) partSelect.value = choice.part;
    renderLeaderboard();
    const st = section("studies-section", "Studies");
    const rows = [];
    for (const sw of overview.sweeps) for (const s of sw.studies) rows.push(Object.assign({sweep: sw}, s));
    place(st, "studies", [
      {key: "experiment", label: "experiment", left: true, value: r => r.sweep.experiment},
      {key: "workload", label: "workload", left: true, value: r => r.sweep.workload},
      {key: "ruleset", label: "ruleset", left: true, value: r => r.sweep.ruleset},
      {key: "study", label: "study", left: true, value: r => r.name, cell: r => link("/study/" + r.id, "study_" + r.study)},
      {key: "done", label: "done", value: r => r.done / Math.max(1, r.done + r.running + r.pending),
       cell: r => el("span", {}, progressBar(r.done, r.done + r.running + r.pending), " " + r.done + "/" + (r.done + r.running + r.pending))},
      {key: "running", label: "running", value: r => r.running},
      {key: "best", label: "best trial", value: r => r.best_trial},
      {key: "ttt", label: "time to target", value: r => r.time_to_target, cell: r => r.time_to_target === null ? (r.done ? "inf" : "") : secs(r.time_to_target)},
      {key: "median", label: "workload (median)", value: r => r.sweep.time_to_target, cell: r => r.sweep.finished ? secs(r.sweep.time_to_target) : "unfinished"},
    ], rows, r => r.running ? "running" : null);
  }
  function renderLeaderboard() {
    const lb = section("leaderboard-section", "Leaderboard so far");
    const note = slot(lb, "scored", "p");
    note.className = "note";
    if (!leaderboard) { note.textContent = overview && overview.parts.length ? "scoring..." : "no study yet"; return; }
    const l = leaderboard;
    const subs = l.submissions || [];
    note.textContent = (l.message ? "No leaderboard yet: " + l.message + ". " : "") + "Part " + l.part + ", " +
        l.time_axis + "; scored at " + clock(l.scored_at) + " from " + l.finished_trials + " finished trials" +
        (overview && overview.activity.finished !== l.finished_trials ? " (the store has " + overview.activity.finished +
         " now: it is rescored at most every --score-every seconds while trials finish, 30 by default)" : "") +
        ". Score: AlgoPerf's benchmark score (higher is better); pace: Pacer's second score (lower is faster).";
    const reachedOf = s => s.reached + "/" + (l.base_workloads ? l.base_workloads.length : "?");
    place(lb, "leaderboard", [
      {key: "rank", label: "rank", value: s => s.rank},
      {key: "name", label: "submission", left: true, value: s => s.name},
      {key: "score", label: "score", value: s => s.score},
      {key: "pace_rank", label: "pace rank", value: s => s.pace_rank},
      {key: "pace", label: "pace", value: s => s.pace},
      {key: "reached", label: "workloads reached", value: s => s.reached, cell: reachedOf},
    ], subs);
    const img = slot(lb, "profiles", "img");
    img.className = "chart";
    img.alt = "performance profiles";
    const src = "/api/profiles.svg?part=" + encodeURIComponent(l.part) + "&time=" + encodeURIComponent(l.time_axis) +
        "&at=" + encodeURIComponent(l.scored_at);
    if (img.getAttribute("src") !== src) img.setAttribute("src", src);
    const warn = slot(lb, "warnings", "ul");
    warn.className = "note";
    warn.replaceChildren(...[...(l.store_warnings || []), ...(l.warnings || [])].map(w => el("li", {text: w})));
  }
  // Throws to the caller (the poll shows the error); a reply for a part or axis no longer chosen
  // (the user changed it while the request ran) is dropped.
  async function pollLeaderboard() {
    if (!choice.part) return;
    const part = choice.part, time = choice.time;
    const reply = await getJson("/api/leaderboard?part=" + encodeURIComponent(part) + "&time=" + encodeURIComponent(time));
    if (part !== choice.part || time !== choice.time) return;
    leaderboard = reply;
    renderLeaderboard();
  }

  // ---- study: its trials
  let study = null;
  function renderStudy() {
    if (!study) return;
    const s = study.study, p = study.progress;
    const top = section("study-head", null);
    const total = p.done + p.running + p.pending;
    top.replaceChildren(
        el("h1", {text: s.name}),
        el("p", {}, s.algorithm + " on " + s.workload + ", " + s.ruleset + " tuning; " + (s.sampler || "defaults") +
           (s.sampler ? " sampler, seed " + s.sampler_seed : "") + ". Objective: " + study.objective.metric +
           (study.objective.target !== null ? " " + (study.objective.higher_is_better ? ">=" : "<=") + " " + num(study.objective.target) : "") + "."),
        el("p", {id: "progress-line"}, progressBar(p.done, total), " " + p.done + "/" + total + " trials done, " + p.running +
           " running; best trial " + (study.best_trial === null ? "none yet" : study.best_trial) +
           (study.time_to_target !== null ? ", time to target " + secs(study.time_to_target) : "")),
        el("p", {}, link("/study/" + s.id + "/analysis", "Playbook analysis of this study"),
           " (pacer analyze's page: verdicts, axis plots, best-of-k, curves, importance)"));
    const names = [];
    for (const t of study.trials) {
      const hp = t.hyperparameters;
      if (hp && typeof hp === "object") for (const k of Object.keys(hp)) if (!names.includes(k)) names.push(k);
    }
    const columns = [
      {key: "trial", label: "trial", value: t => t.trial, cell: t => link("/trial/" + t.id, "trial_" + t.trial + (t.best ? " (best)" : ""))},
      {key: "status", label: "status", left: true, value: t => t.outcome || t.status},
      {key: "stop", label: "stop reason", left: true, value: t => t.stop_reason},
      {key: "attempts", label: "attempts", value: t => t.attempts},
      {key: "ttt", label: "time to target", value: t => t.time_to_target, cell: t => t.time_to_target === null ? "" : secs(t.time_to_target)},
      {key: "stt", label: "steps to target", value: t => t.steps_to_target},
      {key: "bestv", label: "best " + study.objective.metric, value: t => t.best_validation},
      {key: "steps", label: "steps", value: t => t.steps},
      {key: "time", label: "submission time", value: t => t.submission_time, cell: t => t.submission_time === null ? "" : secs(t.submission_time)},
    ];
    for (const n of names) columns.push({key: "hp." + n, label: n, value: t => t.hyperparameters ? t.hyperparameters[n] : null});
    columns.push({key: "message", label: "message", left: true, value: t => t.message});
    place(section("trials-section", "Trials"), "trials", columns, study.trials,
          t => t.best ? "best" : t.status === "running" ? "running" : (t.status === "diverged" || t.status === "failed") ? "bad" : null);
  }

  // ---- trial: its evals and curve
  let trial = null;
  function renderTrial() {
    if (!trial) return;
    const t = trial.trial;
    const top = section("trial-head", null);
    top.replaceChildren(
        el("h1", {}, link("/study/" + trial.study.id, trial.study.name), " / trial_" + t.trial),
        el("p", {}, "Status " + (t.outcome || t.status) + (t.stop_reason ? " (" + t.stop_reason + ")" : "") + ", " + t.attempts +
           " attempt" + (t.attempts === 1 ? "" : "s") + ", seed " + t.seed + (t.worker ? ", on " + t.worker : "") +
           (t.time_to_target !== null ? "; time to target " + secs(t.time_to_target) : "") +
           (t.message ? "; " + t.message : "")),
        el("p", {class: "note"}, "Hyperparameters: " + JSON.stringify(t.hyperparameters)));
    const curve = section("curve-section", "Curve");
    const img = slot(curve, "curve", "img");
    img.className = "chart";
    img.alt = "training curve";
    const src = "/api/trial/" + t.id + "/curve.svg?evals=" + trial.evals.length;
    if (img.getAttribute("src") !== src) img.setAttribute("src", src);
    const verdicts = slot(curve, "verdicts", "ul");
    const d = trial.diagnosis;
    verdicts.replaceChildren(...(d ? [...d.verdicts.map(v => el("li", {text: v})),
        el("li", {class: "note", text: "best eval at step " + d.best_step + " of " + d.final_step + (d.note ? "; " + d.note : "")})] : []));
    const metricNames = [];
    for (const e of trial.evals) for (const k of Object.keys(e.metrics)) if (!metricNames.includes(k)) metricNames.push(k);
    const columns = [
      {key: "step", label: "step", value: e => e.step},
      {key: "time", label: "submission time", value: e => e.submission_time},
      {key: "eval", label: "eval time", value: e => e.eval_time},
    ];
    for (const m of metricNames) columns.push({key: m, label: m, value: e => e.metrics[m]});
    place(section("evals-section", "Evals"), "evals", columns, trial.evals);
  }

  function render() {
    if (kind === "index") renderIndex();
    else if (kind === "study") renderStudy();
    else renderTrial();
  }

  // Polling: one request at a time, paused while the tab is hidden.
  let ticks = 0;
  async function poll() {
    try {
      if (kind === "index") {
        overview = await getJson("/api/overview");
        render();
        if (ticks % 2 === 0 || !leaderboard) await pollLeaderboard();
      } else if (kind === "study") {
        study = await getJson("/api/study/" + pageId);
        render();
      } else {
        trial = await getJson("/api/trial/" + pageId);
        render();
      }
      setStatus("updated " + new Date().toLocaleTimeString() + "; every " + pollMs / 1000 + " s", false);
    } catch (e) {
      setStatus(e.message, true);
    }
    ticks++;
    setTimeout(() => { if (document.hidden) document.addEventListener("visibilitychange", poll, {once: true}); else poll(); }, pollMs);
  }
  poll();
})();
)JS";

}  // namespace

const std::string& dashboard_js() {
  static const std::string js = kDashboardScript;
  return js;
}

}  // namespace pacer
