"use strict";
// Drawing of one position: the map (SVG) and the side panels.  Used by the replay viewer and by
// the live page of `dune-play --web`.  Every value comes from frames computed by the engine.
(function () {
  const SVGNS = "http://www.w3.org/2000/svg";
  const TOKEN_LETTER = ["F", "H", "O"];
  const SHORT = ["Atr", "Hark", "Frem", "Tlx", "Corr", "Guild", "BG", "Smug"];
  const BOX_W = 30, BOX_H = 18, GAP = 2;

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function factionLabel(meta, f) { return f < 0 ? "-" : meta.factionNames[f]; }
  function swatch(meta, f) {
    const s = el("span", { class: "swatch" });
    s.style.background = f >= 0 ? meta.factionColours[f] : "#ccc";
    return s;
  }

  // A stripe pattern for the storm, so that it shows on every region's colour.
  function stormPattern(root) {
    const defs = svg("defs");
    const pattern = svg("pattern", { id: "storm-stripes", width: 10, height: 10, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
    pattern.appendChild(svg("rect", { width: 10, height: 10, fill: "rgba(40, 40, 90, 0.35)" }));
    pattern.appendChild(svg("rect", { width: 4, height: 10, fill: "rgba(20, 20, 60, 0.55)" }));
    defs.appendChild(pattern);
    root.appendChild(defs);
  }

  function buildMap(root, meta) {
    clear(root);
    root.setAttribute("viewBox", `-40 -8 ${meta.mapSize + 80} ${meta.mapSize + 16}`);
    stormPattern(root);
    const layers = {};
    for (const name of ["regions", "storm", "marks", "labels", "tokens", "units"]) {
      layers[name] = svg("g", { class: "layer-" + name });
      root.appendChild(layers[name]);
    }
    meta.regions.forEach((r, i) => {
      const g = svg("g", { class: "region" + (r.strategic ? " strategic" : "") + (r.desert ? " desert" : ""), "data-region": i });
      const fill = r.sector === 0 ? "#ebebf5" : (r.desert ? "#deb878" : "#b08c64");
      g.appendChild(svg("path", { d: r.path, fill: fill }));
      g.appendChild(svg("title", {}, `${r.name} (sector ${r.sector || "none"}${r.strategic ? ", strategic" : ""}${r.desert ? ", desert: the storm kills units here" : ""})`));
      layers.regions.appendChild(g);
      // The original board marks desert regions with a red X; so does this one.
      const label = svg("text", { class: "name", x: r.anchor[0], y: r.anchor[1] - 14 }, r.name + (r.strategic ? " *" : ""));
      if (r.desert) label.appendChild(svg("tspan", { class: "desert-mark", "data-region": i }, " \u2716"));
      layers.labels.appendChild(label);
    });
    meta.sectorLabels.forEach((p, i) => layers.labels.appendChild(svg("text", { class: "sector-label", x: p[0], y: p[1], "data-sector": i + 1 }, String(i + 1))));
    return layers;
  }

  function drawPosition(layers, meta, frame) {
    for (const name of ["storm", "marks", "tokens", "units"]) clear(layers[name]);
    layers.storm.appendChild(svg("path", { class: "storm", fill: "url(#storm-stripes)", d: meta.stormPaths[frame.storm - 1], "data-sector": frame.storm }));
    if (frame.stormNext) {  // STORM-1: where the storm goes at the end of this turn
      layers.storm.appendChild(svg("path", { class: "storm-next", d: meta.stormPaths[frame.stormNext - 1], "data-sector": frame.stormNext }));
    }
    layers.labels.querySelectorAll(".sector-label").forEach((t) => {  // "3 STORM" on its sector
      const sector = Number(t.dataset.sector);
      t.classList.toggle("in-storm", sector === frame.storm);
      t.textContent = sector === frame.storm ? `${sector} STORM` : String(sector);
    });
    if (frame.target >= 0) {
      const g = svg("g", { class: "target" });
      g.appendChild(svg("path", { d: meta.regions[frame.target].path, fill: "none" }));
      layers.marks.appendChild(g);
    }
    if (frame.battle[0] >= 0) {
      const g = svg("g", { class: "battle" });
      g.appendChild(svg("path", { d: meta.regions[frame.battle[0]].path, fill: "none" }));
      layers.marks.appendChild(g);
    }
    meta.regions.forEach((r, region) => {
      const [x, y] = r.anchor;
      const token = frame.tokens[region];
      if (token >= 0) {
        const g = svg("g", { class: "token", "data-region": region, "data-token": token });
        g.appendChild(svg("circle", { cx: x, cy: y - 36, r: 10 }));
        g.appendChild(svg("text", { x: x, y: y - 36 }, TOKEN_LETTER[token]));
        g.appendChild(svg("title", {}, meta.tokenNames[token]));
        layers.tokens.appendChild(g);
      }
      let index = 0;
      for (let f = 0; f < 8; f++) {
        const regular = frame.units[f][region * 2], elite = frame.units[f][region * 2 + 1];
        if (!regular && !elite) continue;
        const col = index % 3, row = Math.floor(index / 3);
        const bx = x - (3 * BOX_W + 2 * GAP) / 2 + col * (BOX_W + GAP);
        const by = y - 2 + row * (BOX_H + GAP);
        const g = svg("g", { class: "unit", "data-region": region, "data-faction": f, "data-regular": regular, "data-elite": elite });
        g.appendChild(svg("rect", { x: bx, y: by, width: BOX_W, height: BOX_H, fill: meta.factionColours[f] }));
        g.appendChild(svg("text", { x: bx + BOX_W / 2, y: by + BOX_H / 2 }, elite ? `${regular}+${elite}` : String(regular)));
        g.appendChild(svg("title", {}, `${meta.factionNames[f]}: ${regular} unit(s)${elite ? `, ${elite} Sardaukar` : ""} in ${r.name}`));
        layers.units.appendChild(g);
        index++;
      }
    });
  }

  // Dice are numbered 1-7 for people, as the event log numbers them (faction dice 1-4, the
  // region die 5, the spice die 6, the Kanly die 7); `die` is the engine's index 0-6.
  const DIE_KINDS = ["faction die", "faction die", "faction die", "faction die", "region die", "spice die", "Kanly die"];
  function dieFace(meta, frame, die) {
    const face = frame.dice[die];
    const n = die + 1;
    const fixed = frame.fixed[die] ? " fixed" : "";
    if (die < 4) {
      const f = meta.dieSymbols[face];
      const d = el("span", { class: "die" + fixed, "data-die": die, title: `die ${n}, a ${DIE_KINDS[die]}: ${meta.factionNames[f]}${fixed ? " (fixed)" : ""}` }, `${n}: ${SHORT[f]}`);
      d.style.background = meta.factionColours[f];
      return d;
    }
    let text;
    if (die === 4) text = `region ${face + 1}`;
    else if (die === 5) text = face === 5 ? "Shai-Hulud" : `spice ${face + 1}`;
    else text = meta.kanlyNames[face];
    return el("span", { class: "die plain" + fixed, "data-die": die, title: `die ${n}, the ${DIE_KINDS[die]}${fixed ? " (fixed)" : ""}` }, `${n}: ${text}`);
  }

  function drawStatus(node, meta, frame) {
    clear(node);
    const next = frame.stormNext ? ` (moves to sector ${frame.stormNext} at the end of this turn)` : "";
    const line = el("div", {}, `Round ${frame.round}/${meta.maxRounds} · storm over sector ${frame.storm}${next} · ${(meta.phaseNames || {})[frame.phase] || frame.phase}`);
    line.id = "round-line";
    node.appendChild(line);
    const dice = el("div", { class: "dice", id: "status-dice" });
    dice.appendChild(el("span", {}, "Dice:"));
    if (frame.rolled === 0) {  // set-up: nobody has rolled yet
      dice.appendChild(el("span", { class: "not-rolled" }, "not rolled yet (the first turn starts after the set-up)"));
    } else {
      for (let d = 0; d < 7; d++) dice.appendChild(dieFace(meta, frame, d));
      if (frame.fixed.some((f) => f) && !frame.fixed.every((f) => f)) dice.appendChild(el("span", { class: "muted" }, "(thick border: fixed)"));
    }
    node.appendChild(dice);
    const extra = [`pool ${frame.pool} spice`];
    extra.push(`target ${frame.target >= 0 ? meta.regions[frame.target].name : "-"}`);
    extra.push(`ally ${frame.ally >= 0 ? meta.factionNames[frame.ally] : "-"}`);
    if (frame.battle[0] >= 0) extra.push(`battle in ${meta.regions[frame.battle[0]].name} (defender ${factionLabel(meta, frame.battle[1])})`);
    const supply = frame.supply.map((n, t) => `${meta.tokenNames[t]} ${n}`).join(", ");
    node.appendChild(el("div", {}, extra.join(" · ")));
    node.appendChild(el("div", {}, `Supply: ${supply}; Thumpers ${frame.thumperSupply}`));
    if (frame.lastBattle.length) {
      const lb = frame.lastBattle;
      node.appendChild(el("div", {}, `Last battle: ${meta.regions[lb[0]].name}, ${meta.factionNames[lb[1]]} ${lb[3]} against ${meta.factionNames[lb[2]]} ${lb[4]}: the ${lb[5] ? "defender" : "attacker"} won.`));
    }
  }

  function drawSeats(tbody, meta, frame, policies) {
    clear(tbody);
    frame.factions.forEach((f, seat) => {
      const active = seat === frame.active && !frame.over;  // nobody is active once it is over
      const tr = el("tr", { "data-seat": seat, class: active ? "active-seat" : "" });
      const nameCell = el("td");
      nameCell.appendChild(swatch(meta, f));
      nameCell.appendChild(document.createTextNode(`${seat} ${factionLabel(meta, f)}`));
      tr.appendChild(nameCell);
      tr.appendChild(el("td", {}, policies[seat] || ""));
      if (f < 0) {
        tbody.appendChild(tr);
        return;
      }
      const u = frame.units[f];
      const card = u[20] + u[21], reserve = u[22] + u[23];
      tr.setAttribute("data-card", card);
      tr.setAttribute("data-reserve", reserve);
      tr.appendChild(el("td", { class: "card" }, u[21] ? `${u[20]}+${u[21]}S` : String(card)));
      tr.appendChild(el("td", { class: "reserve" }, String(reserve)));
      tr.appendChild(el("td", { class: "leaders" }, `${frame.leaders[f][0]}/${frame.leaders[f][1]}`));
      tr.appendChild(el("td", { class: "storage" }, frame.storage[f] ? String(frame.storage[f]) : ""));
      const items = [];
      if (frame.thumpers[f]) items.push("Thumper");
      if (frame.shield === f) items.push("Shield");
      if (frame.snooper === f) items.push("Snooper");
      tr.appendChild(el("td", {}, items.join(", ")));
      const marks = [];
      if (active) marks.push("active");
      if (seat === frame.first) marks.push("first");
      if (frame.ally === f) marks.push("ally");
      if (frame.over) marks.push(frame.winners.includes(seat) ? `won (${frame.rewards[seat]})` : `lost (${frame.rewards[seat]})`);
      tr.appendChild(el("td", {}, marks.join(", ")));
      tbody.appendChild(tr);
    });
  }

  // "seat 0 won", "seats 0, 2 won", "nobody won".
  function winnersText(winners) {
    if (!winners.length) return "nobody won";
    return `${winners.length === 1 ? "seat" : "seats"} ${winners.join(", ")} won`;
  }

  function bidText(meta, units, leaders) {
    const parts = [];
    units.forEach((n, i) => { if (n) parts.push(`${n} ${meta.factionNames[i >> 1]} ${i & 1 ? "Sardaukar" : "unit(s)"}`); });
    leaders.forEach((n, f) => { if (n) parts.push(`${n} ${meta.factionNames[f]} leader(s)`); });
    return parts.join(", ") || "nothing yet";
  }

  // What the chosen view knows beyond the public board.
  function drawSecrets(node, meta, frame, view) {
    clear(node);
    const known = frame.know[view];
    const lines = [];
    if (view === "all") {
      if (known && known.bids) {
        lines.push(`Attacker's bid in progress: ${bidText(meta, known.bids[0][0], known.bids[0][1])}`);
        lines.push(`Defender's bid in progress: ${bidText(meta, known.bids[1][0], known.bids[1][1])}`);
      }
      if (known && known.prediction !== undefined) lines.push(`Bene Gesserit prediction: ${meta.factionNames[known.prediction]}`);
      if (!lines.length) lines.push("No hidden information at this point.");
    } else {
      if (known && known.bid) lines.push(`Your side's bid in progress: ${bidText(meta, known.bid[0], known.bid[1])}`);
      if (known && known.prediction !== undefined) lines.push(`Your prediction: ${meta.factionNames[known.prediction]}`);
      lines.push("Hidden from this seat: the other side's bid until both are revealed, and the Bene Gesserit prediction (unless this seat is the Bene Gesserit).");
    }
    lines.forEach((t, i) => node.appendChild(el("div", { class: i === lines.length - 1 && view !== "all" ? "hidden-note" : "" }, t)));
  }

  function decisionVisible(decision, view) {
    return !decision.hidden || view === "all" || Number(view) === decision.seat;
  }

  function drawDecision(head, list, meta, frame, names, view) {
    clear(list);
    const d = frame.decision;
    if (!d) {
      head.textContent = frame.over ? `Game over: ${winnersText(frame.winners)}.` : "No decision pending.";
      return;
    }
    const who = `seat ${d.seat} (${factionLabel(meta, frame.factions[d.seat])})`;
    if (!decisionVisible(d, view)) {
      head.textContent = `${who} decides ${d.kind}`;
      list.appendChild(el("li", { class: "hidden-note" }, `hidden from seat ${view}: the options and the choice are secret`));
      return;
    }
    head.textContent = `${who} decides ${d.kind}: ${d.legal.length} legal option(s)`;
    for (const id of d.legal) {
      const li = el("li", { "data-action": id, class: id === d.chosen ? "chosen" : "" });
      li.appendChild(el("span", { class: "id" }, String(id)));
      li.appendChild(document.createTextNode((names[String(id)] || "") + (id === d.chosen ? "  ← chosen" : "")));
      list.appendChild(li);
    }
  }

  // The legend under the map: one swatch per faction, then the map's symbols.
  function fillLegend(meta, legend) {
    meta.factionNames.forEach((name, f) => {
      const span = el("span");
      span.appendChild(swatch(meta, f));
      span.appendChild(document.createTextNode(name));
      legend.appendChild(span);
    });
    for (const key of ["F Fortress", "H Harvester", "O Ornithopter", "* strategic", "\u2716 desert: the storm kills units here", "dark stripes: the storm", "dashed blue: where the storm goes at the end of this turn", "green dashes: movement target", "red outline: battle"]) {
      legend.appendChild(el("span", {}, key));
    }
  }

  window.DuneBoard = { el, svg, clear, winnersText, buildMap, drawPosition, drawStatus, drawSeats, drawSecrets, drawDecision, decisionVisible, swatch, fillLegend };
})();
