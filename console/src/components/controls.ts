/** Driving a session: submit / steer / follow-up, interrupt, hold and pause with a reason, resume, archive. */
import { html } from "htm/preact";
import type { VNode } from "preact";
import { useState } from "preact/hooks";
import type { ResumeMode } from "../api.js";
import type { SessionView } from "../wire.js";

export interface ControlActions {
  submit(text: string): Promise<void>;
  steer(text: string): Promise<void>;
  followUp(text: string): Promise<void>;
  interrupt(): Promise<void>;
  hold(reason: string): Promise<void>;
  pause(reason: string): Promise<void>;
  resume(mode: ResumeMode, message: string): Promise<void>;
  archive(): Promise<void>;
  /** Model and effort of later runs; an empty field goes back to the agent's default. */
  configure(settings: { model: string | null; effort: string | null }): Promise<void>;
}

export function Controls({ session, actions }: { session: SessionView | undefined; actions: ControlActions }): VNode {
  const [text, setText] = useState("");
  const [reason, setReason] = useState("");
  const [mode, setMode] = useState<ResumeMode>("continue");
  const [resumeMessage, setResumeMessage] = useState("");
  const [model, setModel] = useState(session?.settings.model ?? "");
  const [effort, setEffort] = useState(session?.settings.effort ?? "");
  const [busy, setBusy] = useState(false);
  const archived = session?.state === "archived";
  const act = async (work: () => Promise<void>, after?: () => void): Promise<void> => {
    setBusy(true);
    try {
      await work();
      after?.();
    } catch {
      // The app shows the error; the fields keep what was typed.
    } finally {
      setBusy(false);
    }
  };
  const send = (kind: "submit" | "steer" | "followUp"): void => {
    if (text.trim() === "") return;
    void act(() => actions[kind](text), () => setText(""));
  };
  const onKey = (e: KeyboardEvent): void => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      send("submit");
    }
  };
  const disabled = busy || archived;
  return html`<section class="controls" aria-label="Controls">
    <form class="prompt" onSubmit=${(e: Event) => (e.preventDefault(), send("submit"))}>
      <label for="prompt-input">Message</label>
      <textarea id="prompt-input" data-testid="prompt-input" rows="3" value=${text} disabled=${archived} onInput=${(e: Event) => setText((e.currentTarget as HTMLTextAreaElement).value)} onKeyDown=${onKey} placeholder="Ask the agent… (Ctrl+Enter sends)"></textarea>
      <div class="buttons">
        <button type="submit" class="btn btn-allow" data-testid="submit-button" disabled=${disabled}>Send</button>
        <button type="button" class="btn" data-testid="steer-button" disabled=${disabled} onClick=${() => send("steer")}>Steer</button>
        <button type="button" class="btn" data-testid="follow-up-button" disabled=${disabled} onClick=${() => send("followUp")}>Follow up</button>
      </div>
    </form>
    <div class="row">
      <button type="button" class="btn btn-deny" data-testid="interrupt-button" disabled=${disabled} onClick=${() => act(actions.interrupt)}>Interrupt</button>
      <label for="reason-input">Reason</label>
      <input id="reason-input" data-testid="reason-input" type="text" value=${reason} onInput=${(e: Event) => setReason((e.currentTarget as HTMLInputElement).value)} placeholder="why" />
      <button type="button" class="btn" data-testid="hold-button" disabled=${disabled} onClick=${() => act(() => actions.hold(reason || "held from the console"))}>Hold</button>
      <button type="button" class="btn" data-testid="pause-button" disabled=${disabled} onClick=${() => act(() => actions.pause(reason || "paused from the console"))}>Pause</button>
    </div>
    <div class="row">
      <label for="resume-mode">Resume mode</label>
      <select id="resume-mode" data-testid="resume-mode" value=${mode} onChange=${(e: Event) => setMode((e.currentTarget as HTMLSelectElement).value as ResumeMode)}>
        <option value="continue">continue</option>
        <option value="steer">steer</option>
        <option value="abandon">abandon</option>
      </select>
      <label for="resume-message">Resume message</label>
      <input id="resume-message" data-testid="resume-message" type="text" value=${resumeMessage} onInput=${(e: Event) => setResumeMessage((e.currentTarget as HTMLInputElement).value)} />
      <button type="button" class="btn btn-allow" data-testid="resume-button" disabled=${disabled} onClick=${() => act(() => actions.resume(mode, resumeMessage), () => setResumeMessage(""))}>Resume</button>
      <button type="button" class="btn btn-deny" data-testid="archive-button" disabled=${disabled} onClick=${() => act(actions.archive)}>Archive</button>
    </div>
    <form class="row" onSubmit=${(e: Event) => (e.preventDefault(), act(() => actions.configure({ model: model.trim() || null, effort: effort.trim() || null })))}>
      <label for="settings-model">Model</label>
      <input id="settings-model" data-testid="settings-model" type="text" value=${model} placeholder="agent default" onInput=${(e: Event) => setModel((e.currentTarget as HTMLInputElement).value)} />
      <label for="settings-effort">Effort</label>
      <input id="settings-effort" data-testid="settings-effort" type="text" value=${effort} placeholder="agent default" onInput=${(e: Event) => setEffort((e.currentTarget as HTMLInputElement).value)} />
      <button type="submit" class="btn" data-testid="configure-button" disabled=${disabled}>Apply to later runs</button>
    </form>
  </section>`;
}
