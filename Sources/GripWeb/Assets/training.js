// Training on the live page (docs/web.md, "Training"): a protocol planned by the server's engine
// (/api/protocols/plan), followed on the stream's own clock (the SAMPLES times), with the phase, rep and set, the
// target band on the graph, beeps and spoken cues, and an end-of-set summary of the efforts matched to the reps by
// the rule of `griptrack show --protocol` (RepMatcher). The live page calls samples() and effort() as lines arrive,
// and pause() and fresh() as its figures go stale and current again: a run whose samples stop pauses with a banner
// and goes on from where it stopped when they return (the run's own clock, "run time", is the stream's minus the
// time it was paused).
"use strict";

const training = {
  plan: null,          // the server's plan of the protocol chosen, or null
  run: null,           // the run under way: {startT, epochs, efforts, phaseIndex, spoken, recording, trace, paused}
  lastT: null,         // the newest stream time seen (s)
  audio: null,         // the AudioContext, made on the click that starts a run (browsers want a gesture)
  role: "watch",
  asked: 0,            // plan requests made, so a late answer to an older one is dropped

  async setup(session) {
    training.role = session.role;
    document.getElementById("training").hidden = false;
    document.getElementById("run-mode").textContent = training.records()
      ? "Starting a protocol also starts a recording labelled with it."
      : "View only: the record role also starts a recording.";
    const choice = document.getElementById("protocol-choice");
    try {
      const reply = await griptrack.api("/api/protocols");
      // A built-in is asked for by name; one of griptrack.toml's [protocols] by its notation, which the plan and the
      // stored recording then carry, as a built-in's name carries its own.
      for (const entry of reply.protocols) {
        const value = entry.source === "config" ? entry.notation : entry.name;
        const option = new Option(`${entry.name} — ${entry.notation}`, value);
        choice.add(option, choice.options.length - 1);
      }
      document.getElementById("protocol-text").maxLength = reply.text_limit;
      choice.value = "repeaters";
    } catch (error) {
      training.say(error.message);
    }
    choice.addEventListener("change", () => training.choose());
    document.getElementById("protocol-text").addEventListener("change", () => training.choose());
    document.getElementById("run-hand").addEventListener("change", () => training.choose());
    document.getElementById("max-kg").addEventListener("input", () => training.showBand());
    document.getElementById("run-start").addEventListener("click", () => training.start());
    document.getElementById("run-stop").addEventListener("click", () => training.stop());
    await training.choose();
  },

  records() { return training.role === "record" || training.role === "admin"; },

  // The text the plan is asked for: a built-in's name, or the notation typed under "other".
  text() {
    const choice = document.getElementById("protocol-choice").value;
    document.getElementById("protocol-text-label").hidden = choice !== "";
    return choice || document.getElementById("protocol-text").value.trim();
  },

  async choose() {
    if (training.run) return;
    const text = training.text();
    training.plan = null;
    document.getElementById("run-start").disabled = true;
    if (!text) return training.say("Type a protocol, e.g. repeaters 6x 7:3 @80%.");
    const hand = document.getElementById("run-hand").value;
    // Only the newest question's answer counts (typing can outrun the server).
    const ticket = ++training.asked;
    let plan;
    try {
      plan = await griptrack.api(`/api/protocols/plan?text=${encodeURIComponent(text)}&hand=${encodeURIComponent(hand)}`);
    } catch (error) {
      if (ticket === training.asked) training.say(error.message);
      return;
    }
    if (ticket !== training.asked || training.run) return;
    training.plan = plan;
    const parts = [`${plan.reps} × ${plan.work_s === undefined ? (plan.kind === "endurance" ? "to failure" : "explosive") : `${plan.work_s} s`}`];
    if (plan.sets > 1) parts.push(`${plan.sets} sets`);
    if (plan.reps > 1) parts.push(`rest ${plan.rest_s} s`);
    if (plan.sets > 1) parts.push(`${plan.set_rest_s} s between sets`);
    if (plan.target_percent) parts.push(`band ${plan.target_percent[0]}–${plan.target_percent[1]} % of max`);
    if (plan.alternate) parts.push(`hands alternate, ${plan.first_hand} first`);
    training.say(`${plan.notation}: ${parts.join(", ")}.`);
    document.getElementById("run-start").disabled = false;
    training.showBand();
  },

  say(text) { document.getElementById("plan-text").textContent = text; },

  // The band in kg from the max typed in, or null (no band, or no max yet).
  bandKg() {
    const max = parseFloat(document.getElementById("max-kg").value);
    if (!training.plan || !training.plan.target_percent || !(max > 0)) return null;
    return training.plan.target_percent.map((percent) => max * percent / 100);
  },

  showBand() {
    const band = training.bandKg();
    const text = document.getElementById("band-text");
    text.textContent = band ? `band ${band[0].toFixed(1)}–${band[1].toFixed(1)} kg` : "";
    text.dataset.low = band ? String(band[0]) : "";
    text.dataset.high = band ? String(band[1]) : "";
    live.trace.setBand(band);
  },

  async start() {
    if (!training.plan || training.run) return;
    training.sound();
    training.run = {
      startT: training.lastT, efforts: [], phaseIndex: -1, spoken: null, recording: null, trace: { t: [], kg: [] },
      epochs: training.lastT === null ? [] : [{ from: -Infinity, startT: training.lastT }], paused: null,
    };
    document.getElementById("training").dataset.running = "true";
    document.getElementById("summaries").replaceChildren();
    document.getElementById("run").hidden = false;
    document.getElementById("run-start").disabled = true;
    document.getElementById("run-stop").disabled = false;
    for (const id of ["protocol-choice", "protocol-text", "run-hand", "max-kg"]) document.getElementById(id).disabled = true;
    training.showBand();
    if (training.run.startT === null) training.show("waiting", "waiting for the device's samples", null);
    else training.tick();
    if (live.stale) training.pause(document.getElementById("stale").textContent);
    if (training.records()) {
      const plan = training.plan;
      const hand = plan.alternate ? "both" : plan.first_hand;
      const label = `protocol ${plan.notation}`.slice(0, 200);
      const outcome = document.getElementById("outcome");
      try {
        const max = parseFloat(document.getElementById("max-kg").value);
        const reply = await griptrack.api("/api/record", {
          hand, label, protocol: plan.notation, protocol_max_kg: max > 0 ? max : undefined,
        });
        if (reply.event === "started" && reply.saving) training.run.recording = reply.id;
        outcome.textContent = reply.event === "started"
          ? (reply.saving ? `Recording #${reply.id}` : "Recording live only") + ` (${label})` : reply.reason;
      } catch (error) {
        outcome.textContent = `The run goes on without a new recording: ${error.message}`;
      }
      live.refreshStatus();
    }
  },

  // Ends the run (and the recording it started); the summaries stay.
  async stop() {
    const run = training.run;
    if (!run) return;
    training.run = null;
    training.banner("");
    live.showBand(0);
    delete document.getElementById("training").dataset.running;
    training.render(run, true);
    document.getElementById("phase").dataset.phase = "ended";
    document.getElementById("phase").textContent = "ENDED";
    document.getElementById("run-stop").disabled = true;
    for (const id of ["protocol-choice", "protocol-text", "run-hand", "max-kg"]) document.getElementById(id).disabled = false;
    document.getElementById("run-start").disabled = !training.plan;
    if (run.recording !== null && training.records()) await live.command("/api/stop", {});
  },

  samples(line) {
    if (!line.t.length) return;
    training.lastT = line.t[line.t.length - 1];
    const run = training.run;
    if (!run) return;
    if (run.startT === null) {
      run.startT = line.t[0];
      run.epochs.push({ from: -Infinity, startT: run.startT });
    } else if (run.paused) {
      // Samples again: the run goes on from the run time it paused at, whatever the stream's clock did meanwhile.
      run.startT = line.t[0] - run.paused.elapsed;
      run.epochs.push({ from: line.t[0], startT: run.startT });
      run.paused = null;
      training.banner("");
    }
    training.keep(run, line);
    training.tick();
  },

  // Run time (s from the run's start, pauses left out) of a stream time: by the start in force when it was sampled.
  runTime(run, t) {
    for (let index = run.epochs.length - 1; index >= 0; index--) {
      if (run.epochs[index].from <= t) return t - run.epochs[index].startT;
    }
    return t - run.startT;
  },

  // Where the run stands now, in run time.
  elapsed(run) { return training.lastT - run.startT; },

  // The band in kg while a hang is on and the run not paused (the live force is coloured against it), else null.
  activeBand() {
    const run = training.run;
    if (!run || run.paused || run.phaseIndex < 0 || run.startT === null) return null;
    return training.plan.phases[run.phaseIndex].phase === "hang" ? training.bandKg() : null;
  },

  // The live figures went stale (text: the reason and the age of the last sample): the run pauses where it is, with a
  // banner, unless it is over. Called again every half second while they stay stale, for the age.
  pause(text) {
    const run = training.run;
    if (!run) return;
    const phase = run.phaseIndex >= 0 ? training.plan.phases[run.phaseIndex] : null;
    if (phase && phase.phase === "done") return;
    if (run.startT === null) return training.banner(`Waiting for the device's samples: ${text}.`);
    if (!run.paused) {
      const elapsed = training.elapsed(run);
      const left = phase && phase.to_s !== undefined ? Math.max(0, Math.ceil(phase.to_s - elapsed)) : null;
      const word = phase ? { countdown: "GET READY", hang: "HANG", rest: "REST" }[phase.phase] : "the start";
      run.paused = { elapsed, at: left === null ? word : `${word} ${left} s` };
      const element = document.getElementById("phase");
      element.dataset.phase = "paused";
      element.textContent = "PAUSED";
      live.showBand(0);
      if ("speechSynthesis" in window) window.speechSynthesis.cancel();
    }
    training.banner(`Run paused at ${run.paused.at}: ${text}. It goes on from there when samples return; End run ends it.`);
  },

  // The live figures are current again (the run itself resumed at the first sample).
  fresh() {
    if (training.run && !training.run.paused && training.run.startT !== null) training.banner("");
  },

  banner(text) {
    const element = document.getElementById("run-banner");
    if (element.textContent !== text) element.textContent = text;
    element.hidden = !text;
  },

  // The run's recent samples in run time, for time in band: the longest a rep can last (10 min) and a margin, as two
  // flat arrays; older ones are dropped in bulk.
  keep(run, line) {
    const trace = run.trace;
    for (let index = 0; index < line.t.length; index++) {
      trace.t.push(line.t[index] - run.startT);
      trace.kg.push(line.kg[index]);
    }
    const horizon = training.elapsed(run) - 660;
    let cut = 0;
    while (cut < trace.t.length && trace.t[cut] < horizon) cut++;
    if (cut > 4096) {
      trace.t.splice(0, cut);
      trace.kg.splice(0, cut);
    }
  },

  // RepMatcher.fractionInBand: the fraction of [start, start + span] with force inside the band, each sample's force
  // holding until the next; time past the newest sample counts as outside.
  inBand(trace, start, span, band) {
    if (!(span > 0) || !trace.t.length) return null;
    const end = start + span;
    let inside = 0;
    for (let index = 0; index < trace.t.length; index++) {
      const from = Math.max(trace.t[index], start);
      const to = Math.min(index + 1 < trace.t.length ? trace.t[index + 1] : trace.t[index], end);
      if (to > from && trace.kg[index] >= band[0] && trace.kg[index] <= band[1]) inside += to - from;
      if (trace.t[index] > end) break;
    }
    return inside / span;
  },

  effort(line) {
    const run = training.run;
    if (line.event !== "end" || !run || run.startT === null) return;
    // Efforts from before the run belong to no rep (RepMatcher counts from the first pull of the run).
    const start = training.runTime(run, line.start);
    if (start < 0) return;
    const end = start + (line.end - line.start);
    // Time in band over the planned hang (the effort's own length without one), as `show --protocol` counts it.
    const band = training.bandKg();
    const span = training.plan.work_s ?? (end - start);
    const inBand = band ? training.inBand(run.trace, start, span, band) : null;
    run.efforts.push({ start, end, peak_kg: line.peak_kg, mean_kg: line.mean_kg, in_band: inBand });
    training.render(run, false);
  },

  // Where the run stands at the newest stream time: the phase the plan says, the cues a phase change rings.
  tick() {
    const run = training.run, plan = training.plan;
    const elapsed = training.elapsed(run);
    let index = 0;
    while (index + 1 < plan.phases.length && plan.phases[index + 1].from_s <= elapsed) index++;
    const phase = plan.phases[index];
    const remaining = phase.to_s === undefined ? null : phase.to_s - elapsed;
    if (index !== run.phaseIndex) {
      const previous = run.phaseIndex >= 0 ? plan.phases[run.phaseIndex] : null;
      run.phaseIndex = index;
      training.cue(previous, phase);
      training.render(run, false);
    }
    if (remaining !== null && (phase.phase === "countdown" || phase.phase === "rest")) {
      const whole = Math.ceil(remaining);
      // Not over the word that opens the phase ("rest" in a 3 s rest): the count starts below the phase's length.
      const length = Math.ceil(phase.to_s - phase.from_s);
      if (whole <= 3 && whole >= 1 && whole < length && run.spoken !== whole) {
        run.spoken = whole;
        training.speak(String(whole));
      }
    }
    training.show(phase.phase, null, remaining, phase.rep);
    // Once a second, so a rep whose window closed without a pull turns from pending to missed.
    const second = Math.floor(elapsed);
    if (second !== run.renderedSecond) {
      run.renderedSecond = second;
      training.render(run, false);
    }
  },

  // The phase, the seconds left, the rep and set counters, the hand.
  show(phase, text, remaining, repNumber) {
    const plan = training.plan;
    const element = document.getElementById("phase");
    element.dataset.phase = phase;
    element.textContent = text || { countdown: "GET READY", hang: "HANG", rest: "REST", done: "DONE" }[phase];
    const countdown = document.getElementById("countdown");
    countdown.textContent = remaining === null ? (phase === "hang" ? "hold" : "") : `${Math.max(0, Math.ceil(remaining))} s`;
    const rep = repNumber ? plan.planned[repNumber - 1] : null;
    const repCounter = document.getElementById("rep-counter");
    const setCounter = document.getElementById("set-counter");
    repCounter.dataset.rep = rep ? String(rep.number) : "";
    repCounter.textContent = rep ? `${phase === "hang" ? "rep" : "next rep"} ${rep.rep}/${plan.reps}` : "";
    setCounter.dataset.set = rep ? String(rep.set) : "";
    setCounter.textContent = rep ? `set ${rep.set}/${plan.sets}` : "";
    document.getElementById("run-hand-now").textContent = rep && plan.alternate ? `${rep.hand} hand` : "";
  },

  // Beeps at a hang's start and end, and words: "3, 2, 1" before (tick), "pull", "rest", "left hand next", "done".
  cue(previous, phase) {
    const plan = training.plan;
    const rep = phase.rep ? plan.planned[phase.rep - 1] : null;
    const repHand = (number) => plan.planned[number - 1].hand;
    if (phase.phase === "hang") {
      training.beep(880, 0.25);
      training.speak("pull");
    } else if (phase.phase === "rest") {
      training.beep(440, 0.35);
      const handChanges = plan.alternate && previous && previous.rep && repHand(previous.rep) !== rep.hand;
      training.speak(handChanges ? `rest, ${rep.hand} hand next` : "rest");
    } else if (phase.phase === "done") {
      training.beep(440, 0.6);
      training.speak("done");
    } else if (phase.phase === "countdown" && rep) {
      training.speak(plan.alternate ? `${rep.hand} hand first` : "get ready");
    }
    training.spokenReset();
  },

  spokenReset() { if (training.run) training.run.spoken = null; },

  sound() {
    if (!document.getElementById("cues").checked) return;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!training.audio && Context) training.audio = new Context();
    if (training.audio && training.audio.state === "suspended") training.audio.resume();
  },

  beep(frequency, seconds) {
    if (!document.getElementById("cues").checked || !training.audio) return;
    const context = training.audio;
    const oscillator = context.createOscillator();
    const gain = context.createGain();
    oscillator.frequency.value = frequency;
    gain.gain.setValueAtTime(0.25, context.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, context.currentTime + seconds);
    oscillator.connect(gain).connect(context.destination);
    oscillator.start();
    oscillator.stop(context.currentTime + seconds);
  },

  speak(text) {
    if (!document.getElementById("cues").checked || !("speechSynthesis" in window)) return;
    window.speechSynthesis.cancel();
    window.speechSynthesis.speak(new SpeechSynthesisUtterance(text));
  },

  // Every planned rep against the run's efforts, as `griptrack show --protocol` matches them (RepMatcher): the first
  // effort of the run is the first rep; a rep expects its effort where the last matched rep's effort was plus the
  // planned time between them; the next unused effort that starts within the start tolerance of that is the rep's
  // (efforts starting earlier belong to no rep); held less than the planned hang minus the short tolerance is short.
  // Live, a rep whose window is still open is pending rather than missed.
  match(run, ended) {
    const plan = training.plan;
    const tolerance = plan.start_tolerance_s;
    // In run time, as the efforts are.
    const now = run.startT === null ? 0 : training.elapsed(run);
    const efforts = run.efforts;
    // Before the first pull the schedule anchors the windows (for pending only: a pull then anchors as RepMatcher's).
    let anchor = efforts.length ? { planned: 0, actual: efforts[0].start } : { planned: 0, actual: plan.countdown_s };
    let next = 0;
    return plan.planned.map((rep) => {
      const expected = anchor.actual + (rep.start_s - anchor.planned);
      while (next < efforts.length && efforts[next].start < expected - tolerance) next++;
      if (next < efforts.length && efforts[next].start <= expected + tolerance) {
        const effort = efforts[next++];
        anchor = { planned: rep.start_s, actual: effort.start };
        const held = effort.end - effort.start;
        const short = rep.hang_s !== undefined && held < rep.hang_s - plan.short_tolerance_s;
        return { rep, status: short ? "short" : "done", effort };
      }
      // An effort that began in the window may still be under way: its end event has not come yet.
      const open = now < expected + tolerance + (rep.hang_s ?? 1) + plan.short_tolerance_s;
      return { rep, status: !ended && open ? "pending" : "missed", effort: null };
    });
  },

  // One summary per set that is over: reps done, short, missed (and pending while a window is open), the mean of
  // the matched reps' peaks (all-out tests) or means (held in a band), and with a band and a max the mean time in
  // band of the matched reps.
  render(run, ended) {
    const plan = training.plan;
    const outcomes = training.match(run, ended);
    const current = run.phaseIndex >= 0 ? plan.phases[run.phaseIndex] : null;
    const currentSet = current && current.rep ? plan.planned[current.rep - 1].set : (current && current.phase === "done" ? plan.sets + 1 : 0);
    const container = document.getElementById("summaries");
    container.replaceChildren();
    for (let set = 1; set <= plan.sets; set++) {
      const reps = outcomes.filter((outcome) => outcome.rep.set === set);
      const setOver = ended || currentSet > set;
      if (!setOver) continue;
      const count = (status) => reps.filter((outcome) => outcome.status === status).length;
      const figures = reps.filter((outcome) => outcome.effort).map((outcome) => outcome.effort[plan.summary_figure]);
      const average = (values) => values.length ? values.reduce((sum, value) => sum + value, 0) / values.length : null;
      const mean = average(figures);
      const inBand = average(reps.filter((outcome) => outcome.effort && outcome.effort.in_band !== null)
        .map((outcome) => outcome.effort.in_band));
      const line = document.createElement("p");
      line.className = "summary";
      Object.assign(line.dataset, {
        set: String(set), done: String(count("done")), short: String(count("short")), missed: String(count("missed")),
        pending: String(count("pending")), mean: mean === null ? "" : String(mean),
        inBand: inBand === null ? "" : String(inBand),
      });
      const words = [`${count("done")} done`, `${count("short")} short`, `${count("missed")} missed`];
      if (count("pending")) words.push(`${count("pending")} still open`);
      const figure = plan.summary_figure === "peak_kg" ? "peaks" : "means";
      line.textContent = `Set ${set}/${plan.sets}: ${words.join(", ")} of ${reps.length} reps` +
        (mean === null ? "" : ` · mean of the rep ${figure} ${mean.toFixed(1)} kg`) +
        (inBand === null ? "" : ` · ${Math.round(inBand * 100)} % of the hang time in band`);
      container.append(line);
    }
  },
};
