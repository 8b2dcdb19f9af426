// The report's viewer: reads the data the report carries (#report-data), draws the header,
// the step list and the screen, and lets the reader walk the run — a click or ←/→ picks a
// step, the scrubber walks every frame of the recording, Play replays it at real speed.
// Every text from the run is set as text, never parsed as HTML; only the screens' SVG
// pieces, written by tuipilot's renderer with their text escaped, become markup.
(function () {
  "use strict";
  // What tried to leave the file — a resource fetched, or one the page's policy blocked —
  // is counted on the root element (data-requests), so a check can see it stays 0.
  let blocked = 0;
  const countRequests = () => {
    document.documentElement.dataset.requests = String(performance.getEntriesByType("resource").length + blocked);
  };
  document.addEventListener("securitypolicyviolation", () => { blocked++; countRequests(); });
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const app = document.getElementById("app");
  // Idle gaps longer than this are shortened when playing, as players of recordings do.
  const LONGEST_PAUSE_MS = 3000;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key === "on") for (const [event, f] of Object.entries(value)) node.addEventListener(event, f);
      else node.setAttribute(key, value);
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }
  const seconds = (ms) => (ms / 1000).toFixed(3) + " s";
  const failure = data.failure || null;
  const failedStep = failure && Number.isInteger(failure.step) ? failure.step : -1;

  // The header: what ran, on what screen, how it ended.
  const facts = el("div", { class: "facts" });
  const fact = (name, value) => {
    if (value === null || value === undefined || value === "") return;
    facts.append(el("span", {}, name + " ", el("code", { text: String(value) })));
  };
  fact("command", data.command);
  fact("screen", data.cols + "×" + data.rows);
  fact("TERM", data.term);
  fact("took", seconds(data.duration));
  fact("steps", data.steps.length);
  fact("program", data.exit);
  app.append(
    el("header", {},
      el("h1", {}, el("span", { class: "verdict " + data.verdict, id: "verdict", text: data.verdict }),
        el("span", { id: "title", text: data.kind + " " + data.title })),
      facts)
  );

  // The steps.
  const list = el("ol", { id: "steps" });
  const items = data.steps.map((step, i) => {
    const why = step.error ? "failed: " + step.error : step.waited || "";
    const item = el("li", { class: step.error || i === failedStep ? "failed" : null, "data-step": i },
      el("div", { class: "label", text: (i + 1) + ". " + step.label }),
      el("div", { class: "meta", text: seconds(step.at) + " · " + step.took + " ms" + (step.source ? " · " + step.source : "") }),
      why ? el("div", { class: "why", text: why }) : null);
    item.addEventListener("click", () => pick(i));
    list.append(item);
    return item;
  });
  const nav = el("nav", {}, list);
  if (!data.steps.length) nav.append(el("p", { class: "meta", text: "(no steps)" }));

  // The screen, its scrubber and what the picked step says.
  const screen = el("div", { class: "screen", id: "screen" });
  const scrub = el("input", { type: "range", min: 0, max: Math.max(0, data.frames.length - 1), value: 0, id: "scrubber", "aria-label": "frame" });
  const play = el("button", { type: "button", id: "play", text: "Play" });
  const when = el("span", { class: "when", id: "when" });
  const detail = el("div", { id: "detail" });
  const view = el("section", { class: "view" },
    screen, el("div", { class: "timeline" }, play, scrub, when), detail);
  app.append(el("main", {}, nav, view));

  const cell = data.cell;
  function changedRows(a, b) {
    if (!a || !b) return [];
    const fa = data.frames[a.index], fb = data.frames[b.index];
    const rows = [];
    for (let r = 0; r < fb.r.length; r++) {
      if (fa.s !== fb.s || fa.r[r] !== fb.r[r] || fa.b[r] !== fb.b[r]) rows.push(r);
    }
    return rows;
  }
  function draw(index, changed, marks) {
    const f = data.frames[index];
    const [w, h, bg] = data.sizes[f.s];
    const parts = ['<svg width="' + w + '" height="' + h + '" viewBox="0 0 ' + w + " " + h + '">',
      '<rect width="' + w + '" height="' + h + '" fill="' + bg + '"/>'];
    // Each row's pieces are drawn at row 0 and kept once; they are placed here.
    const place = (id, r) => '<g transform="translate(0 ' + r * cell.h + ')">' + data.pieces[id] + "</g>";
    f.b.forEach((id, r) => { if (data.pieces[id]) parts.push(place(id, r)); });
    parts.push(data.pieces[f.u]);
    f.r.forEach((id, r) => { if (data.pieces[id]) parts.push(place(id, r)); });
    parts.push(data.pieces[f.o]);
    // A changed row is marked in the gutter left of the screen only: a fill across the
    // row would look like the program's own selection.
    for (const r of changed) {
      const y = cell.y0 + r * cell.h;
      parts.push('<rect class="changed" x="0" y="' + y + '" width="3" height="' + cell.h + '"><title>changed since the previous step</title></rect>');
    }
    for (const m of marks) {
      parts.push('<rect class="' + (m.kind === "masked" ? "masked" : "located") + '" x="' + (cell.x0 + m.col * cell.w) +
        '" y="' + (cell.y0 + m.row * cell.h) + '" width="' + m.width * cell.w + '" height="' + cell.h + '"/>');
    }
    parts.push("</svg>");
    screen.innerHTML = parts.join("");
    scrub.value = index;
    const last = data.frames.length - 1;
    when.textContent = "frame " + (index + 1) + " of " + (last + 1) + " · " + seconds(f.t);
  }

  function explanation() {
    const box = el("div", { class: "explain", id: "explanation" }, el("h2", { text: "Why it failed" }));
    box.append(el("p", { id: "failure-message", text: failure.message }));
    const dl = el("dl");
    const row = (name, value) => { if (value) dl.append(el("dt", { text: name }), el("dd", { text: value })); };
    row("expected", failure.expected);
    row("found", failure.found);
    row("closest line", failure.closest);
    for (const m of failure.marks || []) row(m.kind, "row " + m.row + ", columns " + m.col + "–" + (m.col + m.width - 1));
    for (const q of failure.unanswered || []) row("unanswered query", q);
    box.append(dl);
    if (failure.details && failure.details.includes("\n")) {
      box.append(el("details", {}, el("summary", { text: "The whole report" }), el("pre", { text: failure.details })));
    }
    return box;
  }

  let picked = -1;
  function pick(i) {
    stop();
    picked = i;
    items.forEach((item, j) => item.classList.toggle("picked", j === i));
    if (items[i]) items[i].scrollIntoView({ block: "nearest" });
    const step = data.steps[i];
    const index = step.frame;
    const previous = i > 0 ? { index: data.steps[i - 1].frame } : null;
    const marks = i === failedStep && failure ? failure.marks || [] : [];
    draw(index, changedRows(previous, { index }), marks);
    detail.replaceChildren();
    detail.append(el("h3", { id: "step-title", text: "Step " + (i + 1) + ": " + step.label }));
    detail.append(el("p", { class: "meta", text: "started at " + seconds(step.at) + ", took " + step.took + " ms" + (step.source ? ", " + step.source : "") }));
    if (step.waited) detail.append(el("p", { text: "Its wait ended: " + step.waited }));
    if (i === failedStep && failure) detail.append(explanation());
    else if (step.error) detail.append(el("p", { class: "why", text: "Failed: " + step.error }));
  }

  // Playing: from the frame shown, each frame for as long as it was on the screen.
  let timer = null;
  function stop() {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    play.textContent = "Play";
  }
  function advance(index) {
    draw(index, [], []);
    // The step the recording has reached is the one picked in the list.
    let reached = -1;
    data.steps.forEach((s, j) => { if (s.frame <= index) reached = j; });
    items.forEach((item, j) => item.classList.toggle("picked", j === reached));
    if (index + 1 >= data.frames.length) { stop(); return; }
    const pause = Math.min(LONGEST_PAUSE_MS, Math.max(0, data.frames[index + 1].t - data.frames[index].t));
    timer = setTimeout(() => advance(index + 1), pause);
  }
  play.addEventListener("click", () => {
    if (timer !== null) { stop(); return; }
    play.textContent = "Pause";
    const from = Number(scrub.value) >= data.frames.length - 1 ? 0 : Number(scrub.value);
    advance(from);
  });
  scrub.addEventListener("input", () => {
    stop();
    const index = Number(scrub.value);
    draw(index, changedRows(index > 0 ? { index: index - 1 } : null, { index }), []);
  });
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
    if (event.key === "ArrowLeft" && picked > 0) { event.preventDefault(); pick(picked - 1); }
    if (event.key === "ArrowRight" && picked + 1 < data.steps.length) { event.preventDefault(); pick(picked + 1); }
  });

  // Below the screen: a failure no step owns, goldens, files, notes.
  if (failure && failedStep < 0) view.append(explanation());
  if (data.goldens.length) {
    const box = el("div", { class: "goldens", id: "goldens" }, el("h3", { text: "Golden images that differ" }));
    for (const g of data.goldens) {
      box.append(el("h3", { text: g.name }));
      for (const [label, uri] of [["expected", g.expected], ["actual", g.actual], ["difference", g.diff]]) {
        if (uri) box.append(el("figure", {}, el("img", { src: uri, alt: label }), el("figcaption", { text: label })));
      }
      if (g.expected && g.actual) {
        const top = el("img", { class: "top", src: g.actual, alt: "actual over expected" });
        const slider = el("input", { type: "range", min: 0, max: 100, value: 50, "aria-label": "expected ↔ actual" });
        const set = () => { top.style.clipPath = "inset(0 " + (100 - Number(slider.value)) + "% 0 0)"; };
        slider.addEventListener("input", set);
        set();
        box.append(el("figure", {}, el("div", { class: "compare" }, el("img", { src: g.expected, alt: "expected" }), top), slider,
          el("figcaption", { text: "actual (left of the line) over expected (right)" })));
      }
    }
    view.append(box);
  }
  if (data.attachments.length) {
    const box = el("div", { class: "files", id: "files" }, el("h3", { text: "Files" }));
    for (const a of data.attachments) box.append(el("a", { href: a.href, text: a.label }));
    view.append(box);
  }
  if (data.notes.length) {
    const ul = el("ul", { id: "notes" });
    for (const n of data.notes) ul.append(el("li", { text: n }));
    view.append(el("h3", { text: "Notes" }), ul);
  }

  if (failedStep >= 0) pick(failedStep);
  else if (data.steps.length) pick(data.steps.length - 1);
  else if (data.frames.length) draw(data.frames.length - 1, [], []);
  countRequests();
  window.addEventListener("load", countRequests);
})();
