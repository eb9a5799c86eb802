"use strict";
// The live page of `dune-play --web`: asks the local server for the position, sends choices.
(function () {
  const B = window.DuneBoard;
  const meta = JSON.parse(document.getElementById("meta").textContent);
  const layers = B.buildMap(document.getElementById("map"), meta);
  const you = String(meta.you);
  const status = document.getElementById("status");
  const message = document.getElementById("message");
  let busy = false;
  let gameOver = false;
  let yourDecisions = 0;  // decisions you took in this game (the server counts them)

  B.fillLegend(meta, document.getElementById("legend"));

  let picked = [];  // FIX_DICE: the dice picked so far, in order (the page composes the subset)

  // How to play: the steps as a list, the tokens and terms as a definition list (the text
  // wraps to the panel's width).
  (function howToPlay() {
    const how = meta.howToPlay || { title: "", items: [], glossary: [] };
    const node = document.getElementById("howto-text");
    node.appendChild(B.el("div", {}, how.title));
    const list = B.el("ul");
    how.items.forEach((item) => list.appendChild(B.el("li", {}, item)));
    node.appendChild(list);
    node.appendChild(B.el("div", {}, "Tokens and terms:"));
    const terms = B.el("dl");
    how.glossary.forEach(([term, text]) => {
      terms.appendChild(B.el("dt", {}, term));
      terms.appendChild(B.el("dd", {}, text));
    });
    node.appendChild(terms);
    document.getElementById("seats-note").textContent = how.seatsNote ? `(${how.seatsNote})` : "";
  })();

  function title(frame) {
    const f = frame.factions[meta.you];
    const faction = f >= 0 ? `, ${meta.factionNames[f]}` : " (your faction is not chosen yet)";
    document.getElementById("title").textContent = `Dune, the Dice Game: you are seat ${meta.you}${faction}`;
    document.title = f >= 0 ? `Dune: seat ${meta.you}, ${meta.factionNames[f]}` : "Dune, the Dice Game";
  }

  function choice(label, attrs, onClick) {
    const button = B.el("button", Object.assign({ class: "choice" }, attrs), label);
    button.addEventListener("click", onClick);
    return button;
  }

  // Fixing dice one at a time: a button per die just rolled, under the die's own number 1-7 (it
  // keeps its number; a second click puts it back), "done" (d) and "fix all" (a).  Every step
  // (which dice may join, "done", the hint) comes from the server: the page holds no rule.
  function drawDice(dice) {
    const choices = document.getElementById("choices");
    const info = document.getElementById("dice");
    B.clear(choices);
    B.clear(info);
    const mask = picked.reduce((m, d) => m | (1 << d), 0);
    const step = dice.steps[String(mask)];
    if (dice.fixed) info.appendChild(B.el("div", {}, `Fixed before: ${dice.fixed}`));
    else info.appendChild(B.el("div", {}, dice.uses));
    info.appendChild(B.el("div", { id: "picked" }, picked.length
      ? `Picked so far: ${picked.map((d) => dice.labels[d]).join(", ")}`
      : "Click the dice to fix (or type their numbers), one at a time (again to put one back), then \"done\" (d)."));
    if (step.missing) info.appendChild(B.el("div", { class: "hint" }, `(${step.missing})`));
    dice.rolledDice.forEach((d) => choices.appendChild(choice(
      `${d + 1}. [${picked.includes(d) ? "x" : " "}] ${dice.kinds[d]}: ${dice.labels[d]}`,
      { "data-die": d, "data-picked": picked.includes(d) ? "1" : "0" },
      () => {
        if (picked.includes(d)) {
          picked = picked.filter((x) => x !== d);
        } else if (step.pick.includes(d)) {
          picked.push(d);
        } else {
          message.textContent = `${dice.names[d]} cannot be fixed with the dice picked`;
          return;
        }
        message.textContent = "";
        drawDice(dice);
      })));
    const done = choice(step.done ? `d. done: ${step.done}` : "d. done (pick the dice first)", { "data-done": "1" },
      () => post("/api/act", { action: dice.offset + mask }));
    done.disabled = !step.done;
    choices.appendChild(done);
    if (dice.all !== null) {
      choices.appendChild(choice(`a. fix all: ${dice.allText}`, { "data-all": "1" },
        () => post("/api/act", { action: dice.offset + dice.all })));
    }
  }

  let currentDice = null;

  function lines(node, rows) {
    B.clear(node);
    rows.forEach((row) => {
      const cls = [row.mine ? "mine" : "", row.note ? "note" : ""].filter((c) => c).join(" ");
      node.appendChild(B.el("div", { class: cls }, (row.note ? "Note: " : row.mine ? "! " : "") + row.text));
    });
  }

  function draw(state) {
    const frame = state.frame;
    const guide = state.guide || {};
    picked = [];
    currentDice = null;
    gameOver = state.over;
    yourDecisions = state.yourDecisions || 0;
    title(frame);
    B.drawPosition(layers, meta, frame);
    B.drawStatus(document.getElementById("state"), meta, frame);
    B.drawSeats(document.getElementById("seats"), meta, frame, meta.policies);
    B.drawSecrets(document.getElementById("secrets"), meta, frame, you);
    const head = document.getElementById("decision");
    const explain = document.getElementById("explain");
    const context = document.getElementById("context");
    const choices = document.getElementById("choices");
    const notices = document.getElementById("notices");
    B.clear(choices);
    B.clear(document.getElementById("dice"));
    B.clear(notices);
    B.clear(context);
    (guide.notices || []).forEach((line) => notices.appendChild(B.el("div", { class: "notice" }, `Note: ${line}`)));
    explain.textContent = "";
    if (state.over) {
      const won = frame.winners.includes(meta.you);
      head.textContent = `Game over: ${B.winnersText(frame.winners)}. ${won ? "You win!" : "You lose."}`;
      explain.textContent = guide.over || "";
    } else if (state.yourTurn) {
      head.textContent = guide.dice ? guide.title : `${guide.title}: choose one of ${frame.decision.legal.length}`;
      explain.textContent = guide.explain || "";
      (guide.context || []).forEach((line) => context.appendChild(
        B.el("div", { class: line.startsWith("Storm warning") ? "storm-warning" : "" }, line)));
      if (guide.dice) {
        currentDice = guide.dice;
        drawDice(guide.dice);
      } else {
        frame.decision.legal.forEach((id, i) => {
          choices.appendChild(choice(`${i + 1}. ${state.names[String(id)]}`, { "data-action": id },
            () => post("/api/act", { action: id })));
        });
      }
    } else {
      head.textContent = "Waiting for the bots...";
    }
    // What concerns you first (a unit of yours killed, your battles), then everything.
    const concerns = document.getElementById("concerns");
    B.clear(concerns);
    const mine = (state.since || []).filter((row) => row.mine);
    if (mine.length) concerns.appendChild(B.el("div", {}, "What concerns you:"));
    mine.forEach((row) => concerns.appendChild(B.el("div", {}, `! ${row.hit || row.text}`)));
    const since = document.getElementById("since");
    lines(since, state.since || []);
    if (!since.firstChild) since.appendChild(B.el("div", { class: "muted" }, "Nothing new but your own move."));
    since.scrollTop = since.scrollHeight;
    const log = document.getElementById("log");
    lines(log, state.log || []);
    log.scrollTop = log.scrollHeight;
    status.textContent = state.over ? "game over" : `round ${frame.round} · seed ${state.seed} · your decisions ${yourDecisions}`;
    status.setAttribute("data-over", state.over ? "1" : "0");
    status.setAttribute("data-your-turn", state.yourTurn ? "1" : "0");
  }

  async function request(path, options) {
    busy = true;
    document.body.setAttribute("data-busy", "1");
    try {
      const response = await fetch(path, options);
      const data = await response.json();
      if (!response.ok) {
        message.textContent = data.error || `error ${response.status}`;
        return;
      }
      message.textContent = "";
      draw(data);
    } catch (error) {
      message.textContent = `the server did not answer (${error})`;
    } finally {
      busy = false;
      document.body.setAttribute("data-busy", "0");
    }
  }

  function post(path, body) {
    if (busy) return Promise.resolve();
    return request(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
  }

  // "New game" drops the game in progress: ask first (in the page), unless it is over or
  // has not begun.
  const confirmNew = document.getElementById("confirm-new");
  function askNewGame() {
    if (gameOver || yourDecisions === 0) {
      post("/api/new");
      return;
    }
    confirmNew.setAttribute("data-open", "1");
  }
  document.getElementById("new").addEventListener("click", askNewGame);
  document.getElementById("confirm-new-yes").addEventListener("click", () => {
    confirmNew.setAttribute("data-open", "0");
    post("/api/new");
  });
  document.getElementById("confirm-new-no").addEventListener("click", () => confirmNew.setAttribute("data-open", "0"));

  document.getElementById("undo").addEventListener("click", () => post("/api/undo"));
  document.getElementById("load").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    let data;
    try { data = JSON.parse(await file.text()); } catch (error) { message.textContent = "that file is not JSON"; return; }
    post("/api/load", data);
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT") return;
    const n = Number(event.key);
    if (currentDice && n >= 1 && n <= 7) {  // a die by its own number
      const button = document.querySelector(`#choices button[data-die='${n - 1}']`);
      if (button) button.click();
    } else if (currentDice && (event.key === "d" || event.key === "a")) {
      const button = document.querySelector(event.key === "d" ? "#choices button[data-done]" : "#choices button[data-all]");
      if (button && !button.disabled) button.click();
    } else if (!currentDice && n >= 1 && n <= 9) {
      const button = document.querySelectorAll("#choices button")[n - 1];
      if (button) button.click();
    } else if (event.key === "u") {
      if (picked.length && currentDice) {
        picked.pop();
        drawDice(currentDice);
      } else {
        post("/api/undo");
      }
    } else if (event.key === "h" || event.key === "?") {
      const howto = document.getElementById("howto");
      howto.open = !howto.open;
    }
  });
  window.dunePlay = { busy: () => busy };
  request("/api/state", {});
})();
