// The playground page: asks the JSON API as the text changes and draws the answers.
// No framework and nothing loaded from elsewhere. Offsets from the API count Unicode
// code points (Python string indices), so the source text is handled as Array.from(text).
// The API encodes without a tokenizer's own padding and truncation; the page names them
// under each pane and greys the pieces its truncation would cut.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { tokenizers: [], request: 0, timer: null, encodings: {} };
const CONTEXT = 60; // characters of the hovered piece's line shown on either side of it

// A POST says it is JSON: the server refuses any other Content-Type (pages elsewhere can
// send text/plain or forms unasked), and the browser adds this page's Origin, which it checks.
async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, options);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function showError(message) {
  $("error").hidden = !message;
  $("error").textContent = message || "";
}

function chosen() {
  const names = [$("tokenizer").value];
  if ($("side-by-side").checked) names.push($("other-tokenizer").value);
  return names;
}

// ---------------------------------------------------------------- the pieces

// The hovered piece's characters marked in their line of the text (at most CONTEXT
// characters either side): the text box above already shows the whole text.
function drawSource(text, start, end) {
  const source = $("source");
  source.textContent = "";
  if (start === undefined || end <= start) return;
  const chars = Array.from(text);
  let from = start;
  while (from > 0 && chars[from - 1] !== "\n" && start - from < CONTEXT) from--;
  let to = end;
  while (to < chars.length && chars[to] !== "\n" && to - end < CONTEXT) to++;
  const before = chars.slice(from, start).join("");
  const after = chars.slice(end, to).join("");
  const cutBefore = from > 0 && chars[from - 1] !== "\n";
  const cutAfter = to < chars.length && chars[to] !== "\n";
  source.append((cutBefore ? "…" : "") + before);
  source.append(element("mark", "", chars.slice(start, end).join("")));
  source.append(after + (cutAfter ? "…" : ""));
}

function pieceButton(piece, text, tokenizer) {
  const button = element("button", `piece ${piece.kind}`);
  button.type = "button";
  Object.assign(button.dataset, {
    token: piece.token, id: piece.id, start: piece.start, end: piece.end, kind: piece.kind,
  });
  button.title = piece.end > piece.start
    ? `${piece.token} (id ${piece.id}), characters ${piece.start}-${piece.end}`
    : `${piece.token} (id ${piece.id}), added, no source characters`;
  button.append(element("span", "token", piece.token), element("span", "id", String(piece.id)));
  const highlight = () => drawSource(text, piece.start, piece.end);
  const clear = () => drawSource(text);
  button.addEventListener("mouseenter", highlight);
  button.addEventListener("focus", highlight);
  button.addEventListener("mouseleave", clear);
  button.addEventListener("blur", clear);
  button.addEventListener("click", () => traceWord(tokenizer, text, piece, button));
  return button;
}

// A piece the post-processor added ([CLS], [SEP]): no characters of the text.
const isAdded = (piece) => piece.kind === "special" && piece.start === piece.end;

// Indices of the pieces the tokenizer's truncation would cut from this single text.
function cutPieces(pieces, truncation) {
  if (!truncation) return new Set();
  const content = pieces.map((p, i) => (isAdded(p) ? -1 : i)).filter((i) => i >= 0);
  const room = Math.max(truncation.max_length - (pieces.length - content.length), 0);
  const cut = truncation.direction === "left"
    ? content.slice(0, Math.max(content.length - room, 0)) : content.slice(room);
  return new Set(cut);
}

function paddingTarget(padding) {
  if (padding.length !== null && padding.length !== undefined) return `to ${padding.length} tokens`;
  return padding.pad_to_multiple_of
    ? `to the longest of a batch, a multiple of ${padding.pad_to_multiple_of}`
    : "to the longest of a batch";
}

// What the counts leave out of this tokenizer, and what its truncation would cut.
function paneNote(info, cut) {
  const parts = [];
  if (info.padding) parts.push(`padding (${paddingTarget(info.padding)})`);
  if (info.truncation) parts.push(`truncation (at ${info.truncation.max_length} tokens)`);
  if (!parts.length) return "";
  let note = `Shown without its ${parts.join(" and ")}.`;
  if (info.truncation) {
    note += cut ? ` Its truncation would cut the ${cut} greyed pieces.`
      : " This text fits within its truncation.";
  }
  return note;
}

// A line break wherever the text between two pieces holds one (a blank line: a gap).
function lineBreak(text, from, to) {
  const between = Array.from(text).slice(from, to).join("");
  const breaks = (between.match(/\n/g) || []).length;
  if (!breaks) return null;
  const node = element("span", breaks > 1 ? "line-break paragraph" : "line-break");
  node.setAttribute("aria-hidden", "true");
  return node;
}

function drawPane(pane, encoding) {
  const info = state.tokenizers.find((t) => t.name === encoding.tokenizer) || {};
  const cut = cutPieces(encoding.pieces, info.truncation);
  pane.hidden = false;
  pane.dataset.tokenizer = encoding.tokenizer;
  pane.dataset.text = encoding.text;
  pane.dataset.cut = cut.size;
  pane.querySelector(".pane-title").textContent =
    `${encoding.tokenizer}: ${encoding.count} tokens`;
  const note = pane.querySelector(".pane-note");
  note.textContent = paneNote(info, cut.size);
  note.hidden = !note.textContent;
  const box = pane.querySelector(".pieces");
  box.textContent = "";
  let end = 0; // where the last piece with characters ended
  encoding.pieces.forEach((piece, i) => {
    if (!isAdded(piece)) {
      const gap = lineBreak(encoding.text, end, piece.start);
      if (gap) box.append(gap);
      end = piece.end;
    }
    const button = pieceButton(piece, encoding.text, encoding.tokenizer);
    if (cut.has(i)) {
      button.classList.add("cut");
      button.title += " (cut by the tokenizer's truncation)";
    }
    box.append(button);
  });
}

// An answer that failed leaves no pieces of an older text below its error.
function clearPanes() {
  for (const pane of [$("pane-main"), $("pane-other")]) {
    pane.hidden = pane.id !== "pane-main";
    delete pane.dataset.text;
    delete pane.dataset.tokenizer;
    pane.querySelector(".pane-title").textContent = "";
    pane.querySelector(".pane-note").hidden = true;
    pane.querySelector(".pieces").textContent = "";
  }
  $("panes").classList.remove("two");
  $("vocab-body").textContent = "";
  drawSource("");
}

// A trace belongs to one text and tokenizer: gone once either is no longer shown.
function clearStaleTrace(text, names) {
  const body = $("trace-body");
  if (body.dataset.text === text && names.includes(body.dataset.tokenizer)) return;
  body.textContent = "";
  body.dataset.word = "";
  delete body.dataset.text;
  delete body.dataset.tokenizer;
  document.querySelectorAll(".piece.selected").forEach((b) => b.classList.remove("selected"));
}

// aria-busy on the panes: set from a keystroke until the newest answer is drawn.
function setBusy(busy) {
  $("panes").setAttribute("aria-busy", String(busy));
}

async function refresh() {
  const request = ++state.request;
  setBusy(true);
  const text = $("text").value;
  const names = chosen();
  // The API takes each tokenizer once: the same one on both sides is asked once, drawn twice.
  const distinct = [...new Set(names)];
  let answer;
  try {
    answer = distinct.length > 1
      ? await api("/api/compare", { tokenizers: distinct, text })
      : { results: [await api("/api/encode", { tokenizer: distinct[0], text })] };
  } catch (error) {
    if (request !== state.request) return;
    clearPanes();
    clearStaleTrace(null, []);
    showError(error.message);
    setBusy(false);
    return;
  }
  if (request !== state.request) return; // a newer keystroke has already asked
  const results = names.map((name) => answer.results.find((r) => r.tokenizer === name));
  showError("");
  drawSource("");
  clearStaleTrace(text, names);
  drawPane($("pane-main"), results[0]);
  $("pane-other").hidden = results.length < 2;
  $("panes").classList.toggle("two", results.length > 1);
  if (results.length > 1) drawPane($("pane-other"), results[1]);
  try {
    await refreshVocab(names[0], text, request);
  } catch (error) {
    if (request === state.request) showError(error.message);
  }
  if (request === state.request) setBusy(false);
}

function scheduleRefresh() {
  setBusy(true);
  clearTimeout(state.timer);
  state.timer = setTimeout(refresh, 120);
}

// ---------------------------------------------------------------- the trace

async function traceWord(tokenizer, text, piece, button) {
  document.querySelectorAll(".piece.selected").forEach((b) => b.classList.remove("selected"));
  button.classList.add("selected");
  const body = $("trace-body");
  if (piece.word === null) {
    body.textContent = `${piece.token} is a special token: added around the text, not traced.`;
    body.dataset.word = "";
    body.dataset.text = text;
    body.dataset.tokenizer = tokenizer;
    return;
  }
  try {
    const answer = await api("/api/explain", { tokenizer, text });
    const word = answer.words.find((w) => w.span[0] <= piece.start && piece.start < w.span[1])
      || answer.words.find((w) => w.span[0] === piece.start);
    if (text !== $("pane-main").dataset.text) return; // the text changed while it was asked
    drawTrace(body, tokenizer, word, text);
  } catch (error) {
    showError(error.message);
  }
}

function drawTrace(body, tokenizer, word, text) {
  body.textContent = "";
  body.dataset.word = word ? word.original : "";
  body.dataset.tokenizer = tokenizer;
  body.dataset.text = text;
  if (!word) {
    body.textContent = "No word here.";
    return;
  }
  const head = element("p", "trace-head");
  head.append(element("strong", "", `'${word.original}'`));
  if (word.word !== word.original) head.append(` normalized to '${word.word}'`);
  head.append(` (${tokenizer}) → `);
  word.pieces.forEach(([token, id], i) => {
    const kind = word.unk_reason ? "unk" : word.note ? "special" : i ? "continuation" : "start";
    const chip = element("span", `piece sample ${kind}`, token);
    chip.title = `id ${id}`;
    head.append(chip, " ");
  });
  body.append(head);
  if (word.note) body.append(element("p", "hint", word.note));
  const steps = element("ol", "steps");
  for (const position of word.positions) {
    const item = element("li", "position");
    item.dataset.start = position.start;
    item.append(`at ${position.start}: `);
    position.attempts.forEach((attempt, i) => {
      if (i) item.append(", ");
      const tried = element("span", attempt.found ? "attempt found" : "attempt missed",
        `try ${attempt.candidate}: ${attempt.found ? "found" : "no"}`);
      tried.dataset.candidate = attempt.candidate;
      tried.dataset.found = attempt.found;
      item.append(tried);
    });
    if (position.skipped) {
      item.append(element("span", "hint",
        ` (${position.skipped} longer candidates skipped: no vocabulary piece is that long)`));
    }
    steps.append(item);
  }
  body.append(steps);
  if (word.unk_reason) body.append(element("p", "why-unk", `why [UNK]: ${word.unk_reason}`));
}

// ---------------------------------------------------------------- the vocabulary

async function refreshVocab(name, text, request) {
  const facts = await api(`/api/vocab/${encodeURIComponent(name)}?text=${encodeURIComponent(text)}`);
  if (request !== state.request) return;
  const body = $("vocab-body");
  body.textContent = "";
  body.dataset.tokenizer = name;
  const table = element("table");
  const row = (label, value) => {
    const tr = element("tr");
    tr.append(element("th", "", label), element("td", "", value));
    table.append(tr);
  };
  row("tokenizer", name);
  row("size", `${facts.vocab_size.toLocaleString("en")} tokens`);
  row(`${facts.continuing_subword_prefix || "##"} entries`,
    `${(100 * facts.continuation_share).toFixed(1)}% (${facts.continuation_pieces} of `
    + `${facts.continuation_pieces + facts.word_start_pieces} pieces)`);
  row("longest entries", facts.longest_entries.join("  "));
  row("words in 4+ pieces", facts.many_piece_words.length
    ? facts.many_piece_words.map((w) => `${w.word} (${w.pieces})`).join(", ")
    : "none in this text");
  body.append(table);
}

// ---------------------------------------------------------------- start

function fillSelect(select, names, selected) {
  select.textContent = "";
  for (const name of names) {
    const option = element("option", "", name);
    option.value = name;
    option.selected = name === selected;
    select.append(option);
  }
}

async function start() {
  let listing;
  try {
    listing = await api("/api/tokenizers");
    state.tokenizers = listing.tokenizers;
  } catch (error) {
    showError(`cannot list the tokenizers: ${error.message}`);
    return;
  }
  const names = state.tokenizers.map((t) => t.name);
  const first = listing.default || names[0]; // with BERT loaded beside the toy: BERT
  fillSelect($("tokenizer"), names, first);
  fillSelect($("other-tokenizer"), names, names.find((n) => n !== first) || first);
  $("text").addEventListener("input", scheduleRefresh);
  $("tokenizer").addEventListener("change", refresh);
  $("other-tokenizer").addEventListener("change", refresh);
  $("side-by-side").addEventListener("change", () => {
    $("other-tokenizer").disabled = !$("side-by-side").checked;
    refresh();
  });
  await refresh();
}

document.addEventListener("DOMContentLoaded", start);
