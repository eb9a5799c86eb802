"use strict";
// The replay viewer: steps through precomputed frames (buttons, slider, arrow keys).
(function () {
  const B = window.DuneBoard;
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const meta = data.meta, frames = data.frames;
  const policies = meta.policies;
  const layers = B.buildMap(document.getElementById("map"), meta);
  const slider = document.getElementById("slider");
  const viewSelect = document.getElementById("view");
  const status = document.getElementById("status");
  let index = 0;

  slider.max = String(frames.length - 1);
  viewSelect.appendChild(B.el("option", { value: "all" }, "everything (omniscient)"));
  for (let seat = 0; seat < meta.numPlayers; seat++) {
    viewSelect.appendChild(B.el("option", { value: String(seat) }, `seen from seat ${seat}`));
  }
  document.getElementById("title").textContent = meta.title;
  const legend = document.getElementById("legend");
  meta.factionNames.forEach((name, f) => {
    const span = B.el("span");
    span.appendChild(B.swatch(meta, f));
    span.appendChild(document.createTextNode(name));
    legend.appendChild(span);
  });
  for (const key of ["F Fortress", "H Harvester", "O Ornithopter", "* strategic", "shaded: the storm", "green dashes: movement target", "red outline: battle"]) {
    legend.appendChild(B.el("span", {}, key));
  }

  function seatLabels(frame) {
    for (let seat = 0; seat < meta.numPlayers; seat++) {
      const option = viewSelect.options[seat + 1];
      const f = frame.factions[seat];
      option.textContent = `seen from seat ${seat}` + (f >= 0 ? ` (${meta.factionNames[f]})` : "");
    }
  }

  function drawLog(frame, previous) {
    const log = document.getElementById("log");
    B.clear(log);
    const start = previous ? previous.ev : 0;
    for (let i = 0; i < frame.ev; i++) {
      log.appendChild(B.el("div", { class: i >= start ? "new" : "" }, data.events[i]));
    }
    log.scrollTop = log.scrollHeight;
  }

  function show(i) {
    index = Math.max(0, Math.min(frames.length - 1, i));
    const frame = frames[index];
    const view = viewSelect.value;
    slider.value = String(index);
    status.textContent = `decision ${index + 1} of ${frames.length}` + (index === frames.length - 1 ? " (end)" : "");
    status.setAttribute("data-frame", String(index));
    seatLabels(frame);
    B.drawPosition(layers, meta, frame);
    B.drawStatus(document.getElementById("state"), meta, frame);
    B.drawSeats(document.getElementById("seats"), meta, frame, policies);
    B.drawSecrets(document.getElementById("secrets"), meta, frame, view);
    B.drawDecision(document.getElementById("decision"), document.getElementById("options"), meta, frame, data.names, view);
    drawLog(frame, index > 0 ? frames[index - 1] : null);
  }

  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(index - 1));
  document.getElementById("next").addEventListener("click", () => show(index + 1));
  document.getElementById("last").addEventListener("click", () => show(frames.length - 1));
  slider.addEventListener("input", () => show(Number(slider.value)));
  viewSelect.addEventListener("change", () => show(index));
  document.addEventListener("keydown", (event) => {
    if (event.target === viewSelect) return;
    if (event.key === "ArrowRight") { show(index + 1); event.preventDefault(); }
    else if (event.key === "ArrowLeft") { show(index - 1); event.preventDefault(); }
    else if (event.key === "Home") { show(0); event.preventDefault(); }
    else if (event.key === "End") { show(frames.length - 1); event.preventDefault(); }
  });
  window.duneReplay = { show, count: frames.length, index: () => index };
  show(0);
})();
