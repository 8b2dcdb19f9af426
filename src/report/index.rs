//! `index.html`: a suite's page — every tape with its result, duration and first line of
//! failure, filtered by status and name as you type, each linking its own report. One file
//! like the reports: inline style and script, no request leaves it.

use serde::Serialize;
use serde_json::json;

use super::Verdict;

/// One run of a suite, as its page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct SuiteEntry {
    /// The tape (or test) as the suite named it.
    pub name: String,
    /// How it ended.
    pub verdict: Verdict,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
    /// Why it failed, in one line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Its report, relative to the page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
}

const SCRIPT: &str = r#"(function () {
  "use strict";
  const runs = JSON.parse(document.getElementById("suite-data").textContent);
  const body = document.getElementById("runs");
  const name = document.getElementById("name");
  const status = document.getElementById("status");
  const shown = document.getElementById("shown");
  function show() {
    const want = name.value.toLowerCase(), only = status.value;
    body.replaceChildren();
    let count = 0;
    for (const run of runs) {
      if (only !== "all" && run.verdict !== only) continue;
      if (want && !run.name.toLowerCase().includes(want)) continue;
      count++;
      const tr = document.createElement("tr");
      tr.className = run.verdict;
      const cell = (text) => { const td = document.createElement("td"); td.textContent = text; tr.append(td); return td; };
      cell(run.verdict).className = "verdict";
      const where = cell("");
      if (run.report) { const a = document.createElement("a"); a.href = run.report; a.textContent = run.name; where.append(a); }
      else where.textContent = run.name;
      cell((run.duration_ms / 1000).toFixed(2) + " s").className = "num";
      cell(run.message || "");
      body.append(tr);
    }
    shown.textContent = count + " of " + runs.length + " shown";
  }
  name.addEventListener("input", show);
  status.addEventListener("change", show);
  show();
})();"#;

const STYLE: &str = ":root{color-scheme:light dark;--line:#dcdcde;--pass:#1a7f37;--fail:#cf222e}\
body{margin:20px;font:14px/1.45 system-ui,sans-serif}h1{font-size:18px;margin:0 0 8px}\
.summary{margin:0 0 12px}.controls{display:flex;gap:12px;margin:0 0 12px;align-items:center}\
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}\
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
tr.passed td.verdict{color:var(--pass)}tr.failed td.verdict{color:var(--fail);font-weight:600}";

/// The suite's page for `runs`.
pub fn suite_index(title: &str, runs: &[SuiteEntry]) -> String {
    let passed = runs.iter().filter(|r| r.verdict == Verdict::Passed).count();
    let total_ms: u64 = runs.iter().map(|r| r.duration_ms).sum();
    let data = json!(runs).to_string().replace('<', "\\u003c");
    let title = super::html::escape(title);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>{title}</h1>\n\
         <p class=\"summary\" id=\"summary\">{passed} of {} passed, {} failed; {:.2} s in all</p>\n\
         <div class=\"controls\"><label>status <select id=\"status\"><option value=\"all\">all</option>\
         <option value=\"failed\">failed</option><option value=\"passed\">passed</option></select></label>\
         <label>name <input id=\"name\" type=\"search\" placeholder=\"filter\"></label><span id=\"shown\"></span></div>\n\
         <table><thead><tr><th>result</th><th>run</th><th>took</th><th>why it failed</th></tr></thead><tbody id=\"runs\"></tbody></table>\n\
         <script type=\"application/json\" id=\"suite-data\">{data}</script>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        runs.len(),
        runs.len() - passed,
        total_ms as f64 / 1000.0,
    )
}
