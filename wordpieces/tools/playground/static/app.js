// The playground page: asks the JSON API as the text changes and draws the answers.
// No framework and nothing loaded from elsewhere. Offsets from the API count Unicode
// code points (Python string indices), so the source text is handled as Array.from(text).
"use strict";

const $ = (id) => document.getElementById(id);
const state = { tokenizers: [], request: 0, timer: null, encodings: {} };

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

function drawSource(text, start, end) {
  const source = $("source");
  const chars = Array.from(text);
  source.textContent = "";
  if (start === undefined || end <= start) {
    source.textContent = text;
    return;
  }
  source.append(chars.slice(0, start).join(""));
  source.append(element("mark", "", chars.slice(start, end).join("")));
  source.append(chars.slice(end).join(""));
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

function drawPane(pane, encoding) {
  pane.hidden = false;
  pane.dataset.tokenizer = encoding.tokenizer;
  pane.dataset.text = encoding.text;
  pane.querySelector(".pane-title").textContent =
    `${encoding.tokenizer}: ${encoding.count} tokens`;
  const box = pane.querySelector(".pieces");
  box.textContent = "";
  for (const piece of encoding.pieces) box.append(pieceButton(piece, encoding.text, encoding.tokenizer));
}

async function refresh() {
  const request = ++state.request;
  const text = $("text").value;
  const names = chosen();
  // The API takes each tokenizer once: the same one on both sides is asked once, drawn twice.
  const distinct = [...new Set(names)];
  try {
    const answer = distinct.length > 1
      ? await api("/api/compare", { tokenizers: distinct, text })
      : { results: [await api("/api/encode", { tokenizer: distinct[0], text })] };
    if (request !== state.request) return; // a newer keystroke has already asked
    const results = names.map((name) => answer.results.find((r) => r.tokenizer === name));
    showError("");
    drawSource(text);
    drawPane($("pane-main"), results[0]);
    $("pane-other").hidden = results.length < 2;
    $("panes").classList.toggle("two", results.length > 1);
    if (results.length > 1) drawPane($("pane-other"), results[1]);
    await refreshVocab(names[0], text, request);
  } catch (error) {
    if (request === state.request) showError(error.message);
  }
}

function scheduleRefresh() {
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
    return;
  }
  try {
    const answer = await api("/api/explain", { tokenizer, text });
    const word = answer.words.find((w) => w.span[0] <= piece.start && piece.start < w.span[1])
      || answer.words.find((w) => w.span[0] === piece.start);
    drawTrace(body, tokenizer, word);
  } catch (error) {
    showError(error.message);
  }
}

function drawTrace(body, tokenizer, word) {
  body.textContent = "";
  body.dataset.word = word ? word.original : "";
  body.dataset.tokenizer = tokenizer;
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
  try {
    state.tokenizers = (await api("/api/tokenizers")).tokenizers;
  } catch (error) {
    showError(`cannot list the tokenizers: ${error.message}`);
    return;
  }
  const names = state.tokenizers.map((t) => t.name);
  fillSelect($("tokenizer"), names, names[0]);
  fillSelect($("other-tokenizer"), names, names[1] || names[0]);
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
