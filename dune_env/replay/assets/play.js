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
  let lastEv = 0;
  let moves = 0;

  document.getElementById("title").textContent = meta.title;
  B.fillLegend(meta, document.getElementById("legend"));

  let picked = [];  // FIX_DICE: the dice picked so far, in order (the page composes the subset)

  document.getElementById("howto-text").textContent = meta.howToPlay || "";

  function choice(label, attrs, onClick) {
    const button = B.el("button", Object.assign({ class: "choice" }, attrs), label);
    button.addEventListener("click", onClick);
    return button;
  }

  // Fixing dice one at a time: a button per die just rolled (it keeps its place; a second click
  // puts it back), "done" and "fix all". Every step (which dice may join, "done", the hint)
  // comes from the server: the page holds no rule.
  function drawDice(dice) {
    const choices = document.getElementById("choices");
    const info = document.getElementById("dice");
    B.clear(choices);
    B.clear(info);
    const mask = picked.reduce((m, d) => m | (1 << d), 0);
    const step = dice.steps[String(mask)];
    info.appendChild(B.el("div", {}, dice.uses));
    if (dice.fixed) info.appendChild(B.el("div", {}, `Fixed before: ${dice.fixed}`));
    info.appendChild(B.el("div", { id: "picked" }, picked.length
      ? `Picked so far: ${picked.map((d) => dice.labels[d]).join(", ")}`
      : "Click the dice to fix, one at a time (again to put one back), then \"done\"."));
    if (step.missing) info.appendChild(B.el("div", { class: "hint" }, `(${step.missing})`));
    const buttons = dice.rolledDice.map((d) => choice(
      `[${picked.includes(d) ? "x" : " "}] ${dice.names[d]}: ${dice.labels[d]}`,
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
      }));
    const done = choice(step.done ? `done: ${step.done}` : "done (pick the dice first)", { "data-done": "1" },
      () => post("/api/act", { action: dice.offset + mask }));
    done.disabled = !step.done;
    buttons.push(done);
    if (dice.all !== null) {
      buttons.push(choice(`fix all: ${dice.allText}`, { "data-all": "1" },
        () => post("/api/act", { action: dice.offset + dice.all })));
    }
    buttons.forEach((button, i) => {
      button.textContent = `${i + 1}. ${button.textContent}`;
      choices.appendChild(button);
    });
  }

  let currentDice = null;

  function draw(state) {
    const frame = state.frame;
    const guide = state.guide || {};
    picked = [];
    currentDice = null;
    B.drawPosition(layers, meta, frame);
    B.drawStatus(document.getElementById("state"), meta, frame);
    B.drawSeats(document.getElementById("seats"), meta, frame, meta.policies);
    B.drawSecrets(document.getElementById("secrets"), meta, frame, you);
    const head = document.getElementById("decision");
    const explain = document.getElementById("explain");
    const choices = document.getElementById("choices");
    const notices = document.getElementById("notices");
    B.clear(choices);
    B.clear(document.getElementById("dice"));
    B.clear(notices);
    (guide.notices || []).forEach((line) => notices.appendChild(B.el("div", { class: "notice" }, `Note: ${line}`)));
    explain.textContent = "";
    if (state.over) {
      const won = frame.winners.includes(meta.you);
      head.textContent = `Game over: ${frame.winners.length ? "seat(s) " + frame.winners.join(", ") + " won" : "nobody won"}. ${won ? "You win!" : "You lose."}`;
      explain.textContent = guide.over || "";
    } else if (state.yourTurn) {
      head.textContent = guide.dice ? guide.title : `${guide.title}: choose one of ${frame.decision.legal.length}`;
      explain.textContent = guide.explain || "";
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
    const log = document.getElementById("log");
    B.clear(log);
    state.events.forEach((line, i) => log.appendChild(B.el("div", { class: i >= lastEv ? "new" : "" }, line)));
    log.scrollTop = log.scrollHeight;
    lastEv = state.events.length;
    status.textContent = state.over ? "game over" : `round ${frame.round} · seed ${state.seed} · your moves ${moves}`;
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
      if (path === "/api/act") moves++;
      if (path === "/api/new" || path === "/api/load") { lastEv = 0; moves = 0; }
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

  document.getElementById("undo").addEventListener("click", () => post("/api/undo"));
  document.getElementById("new").addEventListener("click", () => post("/api/new"));
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
    if (n >= 1 && n <= 9) {
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
