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
  // Frames shown in the current view.  Seen from a seat, a run of another seat's hidden
  // decisions (the pieces of a bid, one decision each) is one frame: its length would tell
  // how many pieces were committed.
  let visible = frames.map((_, i) => i);

  function visibleFrames(view) {
    if (view === "all") return frames.map((_, i) => i);
    const seat = Number(view);
    const out = [];
    frames.forEach((frame, i) => {
      const d = frame.decision;
      const p = i > 0 ? frames[i - 1].decision : null;
      const hiddenOther = d && d.hidden && d.seat !== seat;
      const sameRun = hiddenOther && p && p.hidden && p.seat === d.seat && p.kind === d.kind;
      if (!sameRun) out.push(i);
    });
    return out;
  }

  function position(i) {  // the last visible frame at or before frame i
    let pos = 0;
    while (pos + 1 < visible.length && visible[pos + 1] <= i) pos++;
    return pos;
  }

  slider.max = String(visible.length - 1);
  viewSelect.appendChild(B.el("option", { value: "all" }, "everything (omniscient)"));
  for (let seat = 0; seat < meta.numPlayers; seat++) {
    viewSelect.appendChild(B.el("option", { value: String(seat) }, `seen from seat ${seat}`));
  }
  document.getElementById("title").textContent = meta.title;
  B.fillLegend(meta, document.getElementById("legend"));

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
    const pos = position(Math.max(0, Math.min(frames.length - 1, i)));
    index = visible[pos];
    const frame = frames[index];
    const view = viewSelect.value;
    slider.value = String(pos);
    status.textContent = `decision ${pos + 1} of ${visible.length}` + (pos === visible.length - 1 ? " (end)" : "");
    status.setAttribute("data-frame", String(index));
    seatLabels(frame);
    B.drawPosition(layers, meta, frame);
    B.drawStatus(document.getElementById("state"), meta, frame);
    B.drawSeats(document.getElementById("seats"), meta, frame, policies);
    B.drawSecrets(document.getElementById("secrets"), meta, frame, view);
    B.drawDecision(document.getElementById("decision"), document.getElementById("options"), meta, frame, data.names, view);
    drawLog(frame, index > 0 ? frames[index - 1] : null);
  }

  const step = (delta) => show(visible[Math.max(0, Math.min(visible.length - 1, position(index) + delta))]);
  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => step(-1));
  document.getElementById("next").addEventListener("click", () => step(1));
  document.getElementById("last").addEventListener("click", () => show(frames.length - 1));
  slider.addEventListener("input", () => show(visible[Number(slider.value)]));
  viewSelect.addEventListener("change", () => {
    visible = visibleFrames(viewSelect.value);
    slider.max = String(visible.length - 1);
    show(index);
  });
  document.addEventListener("keydown", (event) => {
    if (event.target === viewSelect) return;
    if (event.key === "ArrowRight") { step(1); event.preventDefault(); }
    else if (event.key === "ArrowLeft") { step(-1); event.preventDefault(); }
    else if (event.key === "Home") { show(0); event.preventDefault(); }
    else if (event.key === "End") { show(frames.length - 1); event.preventDefault(); }
  });
  window.duneReplay = { show, count: frames.length, index: () => index, visible: () => visible.slice() };
  show(0);
})();
